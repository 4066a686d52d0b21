import {endpoints} from '../../contract/api/endpoints.js'
import type {Balance, LedgerEntryList, Wallet, WalletList} from '../../contract/wallets.js'
import {partnerOf, type RouteSpec, route} from '../context.js'
import type {WalletService} from './service.js'

export function walletRoutes(wallets: WalletService): RouteSpec[] {
  return [
    route({
      endpoint: endpoints.createWallet,
      run: (input): Wallet => wallets.create(partnerOf(input), input.body),
    }),
    route({
      endpoint: endpoints.getWallet,
      run: (input): Wallet => wallets.get(partnerOf(input), input.params.id),
    }),
    route({
      endpoint: endpoints.getWalletBalance,
      run: (input): Balance => wallets.balance(partnerOf(input), input.params.id),
    }),
    route({
      endpoint: endpoints.updateWallet,
      run: (input): Wallet => wallets.update(partnerOf(input), input.params.id, input.body),
    }),
    route({
      endpoint: endpoints.listLedgerEntries,
      run: (input): LedgerEntryList => wallets.entries(partnerOf(input), input.params.id, input.query),
    }),
    route({
      endpoint: endpoints.listWallets,
      run: (input): WalletList => wallets.list(partnerOf(input), input.query),
    }),
  ]
}
