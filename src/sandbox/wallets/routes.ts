import {endpoints} from '../../contract/endpoints.js'
import type {Balance, Wallet, WalletList} from '../../contract/wallets.js'
import {partnerOf, type RouteSpec, route, type SandboxContext} from '../context.js'
import {WalletService} from './service.js'

export function walletRoutes(ctx: SandboxContext): RouteSpec[] {
  const wallets = new WalletService(ctx)
  return [
    route({
      endpoint: endpoints.createWallet,
      run(input): Wallet {
        const partnerId = partnerOf(input)
        return wallets.create(partnerId, input.body)
      },
    }),
    route({
      endpoint: endpoints.getWallet,
      run(input): Wallet {
        const partnerId = partnerOf(input)
        return wallets.get(partnerId, input.params.id)
      },
    }),
    route({
      endpoint: endpoints.getWalletBalance,
      run(input): Balance {
        const partnerId = partnerOf(input)
        return wallets.balance(partnerId, input.params.id)
      },
    }),
    route({
      endpoint: endpoints.updateWallet,
      run(input): Wallet {
        const partnerId = partnerOf(input)
        return wallets.update(partnerId, input.params.id, input.body)
      },
    }),
    route({
      endpoint: endpoints.listWallets,
      run(input): WalletList {
        const partnerId = partnerOf(input)
        return wallets.list(partnerId, input.query)
      },
    }),
  ]
}
