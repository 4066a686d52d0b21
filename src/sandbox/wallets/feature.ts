import type {Feature} from '../feature.js'
import {walletRoutes} from './routes.js'
import {WalletService} from './service.js'

/** Wallets: opening, reading, changing and listing them (their table is the kernel's). */
export const wallets: Feature = {
  name: 'wallets',
  serve: (context) => ({routes: walletRoutes(new WalletService(context))}),
}
