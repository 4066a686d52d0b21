import {endpoints} from '../../contract/api/endpoints.js'
import {partnerOf, type RouteSpec, route} from '../context.js'
import type {BnplService} from './service.js'

/** Buy now, pay later (`/bnplsvc`). */
export function bnplRoutes(bnpl: BnplService): RouteSpec[] {
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
