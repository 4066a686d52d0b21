import {endpoints} from '../../contract/endpoints.js'
import {partnerOf, type RouteSpec, route, type SandboxContext} from '../context.js'
import {BnplService} from './service.js'

/** Buy now, pay later (`/bnplsvc`). Instalments are collected on the settlement tick. */
export function bnplRoutes(ctx: SandboxContext): RouteSpec[] {
  const bnpl = new BnplService(ctx)
  ctx.money.onDue(() => bnpl.collectDue())

  return [
    route({
      endpoint: endpoints.prequalifyBnpl,
      run(input) {
        return bnpl.prequalify(partnerOf(input), input.body)
      },
    }),
    route({
      endpoint: endpoints.createBnplPayment,
      run(input) {
        return bnpl.create(partnerOf(input), input.body)
      },
    }),
    route({
      endpoint: endpoints.getBnplPayment,
      run(input) {
        return bnpl.get(partnerOf(input), input.params.id)
      },
    }),
    route({
      endpoint: endpoints.listBnplPayments,
      run(input) {
        return bnpl.list(partnerOf(input), input.query)
      },
    }),
    route({
      endpoint: endpoints.cancelBnplPayment,
      run(input) {
        return bnpl.cancel(partnerOf(input), input.params.id, input.body?.reason)
      },
    }),
  ]
}
