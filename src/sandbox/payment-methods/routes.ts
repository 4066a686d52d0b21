import {endpoints} from '../../contract/endpoints.js'
import type {PaymentMethod} from '../../contract/payment-methods.js'
import {type RouteSpec, route, userOfPath} from '../context.js'
import type {Tenants} from '../tenants.js'
import type {PaymentMethodService} from './service.js'

/** Saved payment methods of users. */
export function paymentMethodRoutes(methods: PaymentMethodService, tenants: Tenants): RouteSpec[] {
  return [
    route({
      endpoint: endpoints.addPaymentMethod,
      run(input): PaymentMethod {
        const {partnerId, userId} = userOfPath(tenants, input)
        return methods.addPaymentMethod(partnerId, userId, input.body)
      },
    }),
    route({
      endpoint: endpoints.listPaymentMethods,
      run(input) {
        const {partnerId, userId} = userOfPath(tenants, input)
        return methods.listPaymentMethods(partnerId, userId, input.query)
      },
    }),
    route({
      endpoint: endpoints.removePaymentMethod,
      run(input) {
        const {partnerId, userId} = userOfPath(tenants, input)
        return methods.removePaymentMethod(partnerId, userId, input.params.methodId)
      },
    }),
  ]
}
