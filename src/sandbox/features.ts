import {accounts} from './accounts/feature.js'
import {auth} from './auth/feature.js'
import {bnpl} from './bnpl/feature.js'
import {CLOCKS} from './clock.js'
import {control} from './control/feature.js'
import {EVENTS} from './event-log.js'
import {faults} from './faults/feature.js'
import type {Feature} from './feature.js'
import {IDEMPOTENCY} from './http/idempotency.js'
import {inspector} from './inspector/feature.js'
import {MONEY} from './money/schema.js'
import {paymentMethods} from './payment-methods/feature.js'
import {requestLog} from './request-log/feature.js'
import {roundups} from './roundups/feature.js'
import {snapshots} from './snapshots/feature.js'
import {Database, META, type Schema} from './storage/database.js'
import {story} from './story/feature.js'
import {TENANTS} from './tenancy/tenants.js'
import {transactions} from './transactions/feature.js'
import {users} from './users/feature.js'
import {walletProduct} from './wallet-product/feature.js'
import {wallets} from './wallets/feature.js'
import {webhooks} from './webhooks/feature.js'

/**
 * Every feature of the sandbox, each a folder with one descriptor. Their order is the order their
 * routes are registered and their due work runs in (round-up transfers finish before BNPL collects).
 */
export const FEATURES: readonly Feature[] = [
  auth,
  users,
  wallets,
  transactions,
  accounts,
  paymentMethods,
  walletProduct,
  roundups,
  bnpl,
  control,
  faults,
  snapshots,
  story,
  webhooks,
  requestLog,
  inspector,
]

/**
 * Every table of the data file, by who keeps it: the infrastructure's, the kernel's, then each
 * feature's. Migrations of one version run in this order, so the kernel's columns exist before a
 * product fills them.
 */
export const SCHEMAS: readonly Schema[] = [META, CLOCKS, EVENTS, IDEMPOTENCY, TENANTS, MONEY, ...FEATURES]

/** Open a data file with every table of the sandbox, created or brought up to date. */
export function openDatabase(path: string): Database {
  return new Database(path, SCHEMAS)
}
