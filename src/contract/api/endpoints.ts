import type {z} from 'zod'
import {accountEndpoints} from '../accounts.js'
import {authEndpoints} from '../auth.js'
import {bnplEndpoints} from '../bnpl.js'
import {controlEndpoints} from '../control.js'
import {faultEndpoints} from '../faults.js'
import {paymentMethodEndpoints} from '../payment-methods.js'
import {requestLogEndpoints} from '../request-log.js'
import {roundupEndpoints} from '../roundups.js'
import {snapshotEndpoints} from '../snapshots.js'
import {storyEndpoints} from '../story.js'
import {transactionEndpoints} from '../transactions.js'
import {userEndpoints} from '../users.js'
import {walletProductEndpoints} from '../wallet-product.js'
import {walletEndpoints} from '../wallets.js'
import {webhookEndpoints} from '../webhooks.js'
import type {Endpoint, PathParams} from './endpoint.js'

/**
 * The order of the table is the OpenAPI document's: its paths and schemas come in the order the
 * operations first name them. It is the order of the single table the features' tables were cut
 * from, so the document did not change; the wallet and control tables come in two parts to keep it.
 * A rest pattern takes the second part, so an entry added to either table is not left out.
 */
const {createWallet, getWallet, listWallets, ...laterWalletEndpoints} = walletEndpoints
const {sandboxHealth, sandboxReset, ...laterControlEndpoints} = controlEndpoints

/** Every operation of the service, from every feature's table. */
export const endpoints = {
  ...authEndpoints,
  ...userEndpoints,
  createWallet,
  getWallet,
  listWallets,
  sandboxHealth,
  sandboxReset,
  ...transactionEndpoints,
  ...accountEndpoints,
  ...paymentMethodEndpoints,
  ...laterWalletEndpoints,
  ...laterControlEndpoints,
  ...walletProductEndpoints,
  ...webhookEndpoints,
  ...roundupEndpoints,
  ...bnplEndpoints,
  ...requestLogEndpoints,
  ...faultEndpoints,
  ...snapshotEndpoints,
  ...storyEndpoints,
} satisfies Record<string, Endpoint>

export type EndpointId = keyof typeof endpoints
type SurfaceOf<E> = E extends {surface: infer S extends z.ZodType}
  ? S
  : E extends {response: infer R extends z.ZodType}
    ? R
    : never
/** What a call of the client returns: the answer as the service sent it, checked against the surface. */
export type EndpointResult<K extends EndpointId> = z.infer<SurfaceOf<(typeof endpoints)[K]>>
/** The path parameters an operation takes (`never` for none). */
export type EndpointParams<K extends EndpointId> = PathParams<(typeof endpoints)[K]['path']>
/** The body an operation takes (`never` for one that takes none). */
export type EndpointBody<K extends EndpointId> = (typeof endpoints)[K] extends {
  body: infer S extends z.ZodType
}
  ? z.input<S>
  : never
/** The query an operation takes (`never` for one that takes none). */
export type EndpointQuery<K extends EndpointId> = (typeof endpoints)[K] extends {
  query: infer S extends z.ZodType
}
  ? z.input<S>
  : never

const pathPatterns = new Map<Endpoint, RegExp>()

/** The operation that `method` and `path` (below `/v1`, without a query) name, if the table has one. */
export function endpointAt(method: string, path: string): Endpoint | undefined {
  for (const endpoint of Object.values(endpoints) as Endpoint[]) {
    if (endpoint.method !== method) continue
    let pattern = pathPatterns.get(endpoint)
    if (pattern === undefined) {
      pattern = new RegExp(`^${endpoint.path.replace(/\{\w+\}/g, '[^/]+')}/?$`)
      pathPatterns.set(endpoint, pattern)
    }
    if (pattern.test(path)) return endpoint
  }
  return undefined
}
