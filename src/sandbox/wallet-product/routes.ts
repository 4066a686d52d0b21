import {endpoints} from '../../contract/endpoints.js'
import {
  CreateCardRequestSchema,
  type Eligibility,
  type P2PTransfer,
  type UserBalance,
  type VirtualCard,
  type WalletPayment,
} from '../../contract/wallet-product.js'
import {callerOf, type OperationInput, type RouteSpec, type SandboxContext} from '../context.js'
import {EligibilityInput, P2PInput, WalletPaymentInput} from '../transactions/amounts.js'
import {parseInput} from '../validation.js'
import {WalletProductService} from './service.js'

/** The wallet product (`/walletsvc`): eligibility, payments, balances, virtual cards, P2P. */
export function walletProductRoutes(ctx: SandboxContext): RouteSpec[] {
  const product = new WalletProductService(ctx)

  /** The caller's partner and the user of the path: 404 when unknown. */
  function pathUser(input: OperationInput): {partnerId: string; userId: string} {
    const partnerId = callerOf(input).partner.partnerId
    const userId = input.params.id ?? ''
    product.pathUser(userId, partnerId)
    return {partnerId, userId}
  }

  return [
    {
      endpoint: endpoints.checkEligibility,
      run(input): Eligibility {
        const partnerId = callerOf(input).partner.partnerId
        const body = parseInput(EligibilityInput, input.body, 'request body')
        return product.eligibility(partnerId, body)
      },
    },
    {
      endpoint: endpoints.processPayment,
      run(input): WalletPayment {
        const partnerId = callerOf(input).partner.partnerId
        const body = parseInput(WalletPaymentInput, input.body, 'request body')
        return product.pay(partnerId, body)
      },
    },
    {
      endpoint: endpoints.getUserBalance,
      run(input): UserBalance {
        const {partnerId, userId} = pathUser(input)
        return product.balances(partnerId, userId)
      },
    },
    {
      endpoint: endpoints.createCard,
      run(input): VirtualCard {
        const {partnerId, userId} = pathUser(input)
        const body = parseInput(CreateCardRequestSchema, input.body ?? {}, 'request body')
        return product.createCard(partnerId, userId, body)
      },
      // A replay must not resend the number: it is never stored, not even with the idempotency key.
      forReplay(resource: VirtualCard) {
        const {number: _number, cvc: _cvc, ...masked} = resource
        return masked
      },
    },
    {
      endpoint: endpoints.sendP2P,
      run(input): P2PTransfer {
        const partnerId = callerOf(input).partner.partnerId
        const body = parseInput(P2PInput, input.body, 'request body')
        return product.sendP2P(partnerId, body)
      },
    },
  ]
}
