import type {Feature} from '../feature.js'
import {paymentMethodRoutes} from './routes.js'
import {PaymentMethodService} from './service.js'

/** Users' saved payment methods, made from test tokens (their table is the kernel's). */
export const paymentMethods: Feature = {
  name: 'payment-methods',
  serve: (context) => ({routes: paymentMethodRoutes(new PaymentMethodService(context), context.tenants)}),
}
