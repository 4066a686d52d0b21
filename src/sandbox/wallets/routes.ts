import {endpoints} from '../../contract/endpoints.js'
import {type Balance, ListWalletsQuerySchema, type Wallet, type WalletList} from '../../contract/resources.js'
import {callerOf, type RouteSpec, type SandboxContext} from '../context.js'
import {CreateWalletInput, UpdateWalletInput} from '../transactions/amounts.js'
import {parseInput} from '../validation.js'
import {WalletService} from './service.js'

export function walletRoutes(ctx: SandboxContext): RouteSpec[] {
  const wallets = new WalletService(ctx)
  return [
    {
      endpoint: endpoints.createWallet,
      run(input): Wallet {
        const partnerId = callerOf(input).partner.partnerId
        const body = parseInput(CreateWalletInput, input.body, 'request body')
        return wallets.create(partnerId, body)
      },
    },
    {
      endpoint: endpoints.getWallet,
      run(input): Wallet {
        const partnerId = callerOf(input).partner.partnerId
        return wallets.get(partnerId, input.params.id ?? '')
      },
    },
    {
      endpoint: endpoints.getWalletBalance,
      run(input): Balance {
        const partnerId = callerOf(input).partner.partnerId
        return wallets.balance(partnerId, input.params.id ?? '')
      },
    },
    {
      endpoint: endpoints.updateWallet,
      run(input): Wallet {
        const partnerId = callerOf(input).partner.partnerId
        const body = parseInput(UpdateWalletInput, input.body, 'request body')
        return wallets.update(partnerId, input.params.id ?? '', body)
      },
    },
    {
      endpoint: endpoints.listWallets,
      run(input): WalletList {
        const partnerId = callerOf(input).partner.partnerId
        const query = parseInput(ListWalletsQuerySchema, input.query, 'query')
        return wallets.list(partnerId, query)
      },
    },
  ]
}
