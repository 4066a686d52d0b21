import {endpoints} from '../../contract/endpoints.js'
import type {PaymentMethod} from '../../contract/payment-methods.js'
import {type PathInput, partnerOf, type RouteSpec, route, type SandboxContext} from '../context.js'
import {PaymentMethodService} from './service.js'

/** Saved payment methods of users. */
export function paymentMethodRoutes(ctx: SandboxContext): RouteSpec[] {
  const methods = new PaymentMethodService(ctx)

  /** The caller's partner and the user of the path, which must be one of its users. */
  function userOf(input: PathInput<'id'>): {partnerId: string; userId: string} {
    const partnerId = partnerOf(input)
    const userId = input.params.id
    methods.requireUser(partnerId, userId)
    return {partnerId, userId}
  }

  return [
    route({
      endpoint: endpoints.addPaymentMethod,
      run(input): PaymentMethod {
        const {partnerId, userId} = userOf(input)
        return methods.addPaymentMethod(partnerId, userId, input.body)
      },
    }),
    route({
      endpoint: endpoints.listPaymentMethods,
      run(input) {
        const {partnerId, userId} = userOf(input)
        return methods.listPaymentMethods(partnerId, userId, input.query)
      },
    }),
    route({
      endpoint: endpoints.removePaymentMethod,
      run(input) {
        const {partnerId, userId} = userOf(input)
        return methods.removePaymentMethod(partnerId, userId, input.params.methodId)
      },
    }),
  ]
}
