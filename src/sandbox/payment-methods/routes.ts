import {endpoints} from '../../contract/api/endpoints.js'
import type {PaymentMethod} from '../../contract/payment-methods.js'
import {forUserOfPath, type RouteSpec, route} from '../context.js'
import type {Tenants} from '../tenancy/tenants.js'
import type {PaymentMethodService} from './service.js'

/** Saved payment methods of users. */
export function paymentMethodRoutes(methods: PaymentMethodService, tenants: Tenants): RouteSpec[] {
  return [
    route({
      endpoint: endpoints.addPaymentMethod,
      run: forUserOfPath(
        tenants,
        ({partnerId, userId}, input): PaymentMethod =>
          methods.addPaymentMethod(partnerId, userId, input.body),
      ),
    }),
    route({
      endpoint: endpoints.listPaymentMethods,
      run: forUserOfPath(tenants, ({partnerId, userId}, input) =>
        methods.listPaymentMethods(partnerId, userId, input.query),
      ),
    }),
    route({
      endpoint: endpoints.removePaymentMethod,
      run: forUserOfPath(tenants, ({partnerId, userId}, input) =>
        methods.removePaymentMethod(partnerId, userId, input.params.methodId),
      ),
    }),
  ]
}
