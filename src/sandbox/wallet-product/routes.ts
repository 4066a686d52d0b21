import {endpoints} from '../../contract/endpoints.js'
import type {
  Eligibility,
  P2PTransfer,
  UserBalance,
  VirtualCard,
  WalletPayment,
} from '../../contract/wallet-product.js'
import {partnerOf, type RouteSpec, route, userOfPath} from '../context.js'
import type {Tenants} from '../tenants.js'
import type {WalletProductService} from './service.js'

/** The wallet product (`/walletsvc`): eligibility, payments, balances, virtual cards, P2P. */
export function walletProductRoutes(product: WalletProductService, tenants: Tenants): RouteSpec[] {
  return [
    route({
      endpoint: endpoints.checkEligibility,
      run(input): Eligibility {
        const partnerId = partnerOf(input)
        return product.eligibility(partnerId, input.body)
      },
    }),
    route({
      endpoint: endpoints.processPayment,
      run(input): WalletPayment {
        const partnerId = partnerOf(input)
        return product.pay(partnerId, input.body)
      },
    }),
    route({
      endpoint: endpoints.getUserBalance,
      run(input): UserBalance {
        const {partnerId, userId} = userOfPath(tenants, input)
        return product.balances(partnerId, userId)
      },
    }),
    route({
      endpoint: endpoints.createCard,
      run(input): VirtualCard {
        const {partnerId, userId} = userOfPath(tenants, input)
        return product.createCard(partnerId, userId, input.body)
      },
      // A replay must not resend the number: it is never stored, not even with the idempotency key.
      forReplay(resource: VirtualCard) {
        const {number: _number, cvc: _cvc, ...masked} = resource
        return masked
      },
    }),
    route({
      endpoint: endpoints.sendP2P,
      run(input): P2PTransfer {
        const partnerId = partnerOf(input)
        return product.sendP2P(partnerId, input.body)
      },
    }),
  ]
}
