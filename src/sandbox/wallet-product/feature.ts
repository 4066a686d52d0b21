import type {Feature} from '../feature.js'
import {walletProductRoutes} from './routes.js'
import {WALLET_PRODUCT_OWNERS, WALLET_PRODUCT_SCHEMA} from './schema.js'
import {WalletProductService} from './service.js'

/** The wallet product (`/walletsvc`): eligibility, payments, balances, virtual cards, P2P. */
export const walletProduct: Feature = {
  ...WALLET_PRODUCT_SCHEMA,
  owners: WALLET_PRODUCT_OWNERS,
  serve: (context) => ({routes: walletProductRoutes(new WalletProductService(context), context.tenants)}),
}
