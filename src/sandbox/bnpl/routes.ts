import {
  CancelBnplPaymentSchema,
  CreateBnplPaymentSchema,
  ListBnplPaymentsQuerySchema,
  PrequalifyRequestSchema,
} from '../../contract/bnpl.js'
import {endpoints} from '../../contract/endpoints.js'
import {callerOf, type RouteSpec, type SandboxContext} from '../context.js'
import {parseInput} from '../validation.js'
import {BnplService} from './service.js'

/** Buy now, pay later (`/bnplsvc`). Instalments are collected on the settlement tick. */
export function bnplRoutes(ctx: SandboxContext): RouteSpec[] {
  const bnpl = new BnplService(ctx)
  ctx.money.onDue(() => bnpl.collectDue())
  const partnerOf = (input: Parameters<RouteSpec['run']>[0]) => callerOf(input).partner.partnerId

  return [
    {
      endpoint: endpoints.prequalifyBnpl,
      run(input) {
        return bnpl.prequalify(
          partnerOf(input),
          parseInput(PrequalifyRequestSchema, input.body, 'request body'),
        )
      },
    },
    {
      endpoint: endpoints.createBnplPayment,
      run(input) {
        return bnpl.create(partnerOf(input), parseInput(CreateBnplPaymentSchema, input.body, 'request body'))
      },
    },
    {
      endpoint: endpoints.getBnplPayment,
      run(input) {
        return bnpl.get(partnerOf(input), input.params.id ?? '')
      },
    },
    {
      endpoint: endpoints.listBnplPayments,
      run(input) {
        return bnpl.list(partnerOf(input), parseInput(ListBnplPaymentsQuerySchema, input.query, 'query'))
      },
    },
    {
      endpoint: endpoints.cancelBnplPayment,
      run(input) {
        const body = parseInput(CancelBnplPaymentSchema, input.body, 'request body')
        return bnpl.cancel(partnerOf(input), input.params.id ?? '', body?.reason)
      },
    },
  ]
}
