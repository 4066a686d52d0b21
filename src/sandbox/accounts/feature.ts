import type {Feature} from '../feature.js'
import {accountRoutes} from './routes.js'
import {ACCOUNTS_SCHEMA} from './schema.js'
import {AccountService} from './service.js'

/** Bank-account links of users: a link token, exchanged for an account and its ACH payment method. */
export const accounts: Feature = {
  ...ACCOUNTS_SCHEMA,
  serve: (context) => ({routes: accountRoutes(new AccountService(context), context.tenants)}),
}
