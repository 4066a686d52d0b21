import {endpoints} from '../../contract/api/endpoints.js'
import type {
  Eligibility,
  P2PTransfer,
  UserBalance,
  VirtualCard,
  WalletPayment,
} from '../../contract/wallet-product.js'
import {forUserOfPath, partnerOf, type RouteSpec, route} from '../context.js'
import type {Tenants} from '../tenancy/tenants.js'
import type {WalletProductService} from './service.js'

/** The wallet product (`/walletsvc`): eligibility, payments, balances, virtual cards, P2P. */
export function walletProductRoutes(product: WalletProductService, tenants: Tenants): RouteSpec[] {
  return [
    route({
      endpoint: endpoints.checkEligibility,
      run: (input): Eligibility => product.eligibility(partnerOf(input), input.body),
    }),
    route({
      endpoint: endpoints.processPayment,
      run: (input): WalletPayment => product.pay(partnerOf(input), input.body),
    }),
    route({
      endpoint: endpoints.getUserBalance,
      run: forUserOfPath(tenants, ({partnerId, userId}): UserBalance => product.balances(partnerId, userId)),
    }),
    route({
      endpoint: endpoints.createCard,
      run: forUserOfPath(
        tenants,
        ({partnerId, userId}, input): VirtualCard => product.createCard(partnerId, userId, input.body),
      ),
      // A replay must not resend the number: it is never stored, not even with the idempotency key.
      forReplay(resource: VirtualCard) {
        const {number: _number, cvc: _cvc, ...masked} = resource
        return masked
      },
    }),
    route({
      endpoint: endpoints.sendP2P,
      run: (input): P2PTransfer => product.sendP2P(partnerOf(input), input.body),
    }),
  ]
}
