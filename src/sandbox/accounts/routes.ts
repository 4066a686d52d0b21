import type {BankAccount, LinkToken} from '../../contract/accounts.js'
import {endpoints} from '../../contract/api/endpoints.js'
import {forUserOfPath, type RouteSpec, route} from '../context.js'
import type {Tenants} from '../tenancy/tenants.js'
import type {AccountService} from './service.js'

/** Bank-account links (`accounts`) of users. */
export function accountRoutes(accounts: AccountService, tenants: Tenants): RouteSpec[] {
  return [
    route({
      endpoint: endpoints.connectAccount,
      run: forUserOfPath(tenants, ({partnerId, userId}): LinkToken => accounts.connect(partnerId, userId)),
    }),
    route({
      endpoint: endpoints.exchangeLinkToken,
      run: forUserOfPath(
        tenants,
        ({partnerId, userId}, input): BankAccount => accounts.exchange(partnerId, userId, input.body),
      ),
    }),
    route({
      endpoint: endpoints.listAccounts,
      run: forUserOfPath(tenants, ({partnerId, userId}) => accounts.listAccounts(partnerId, userId)),
    }),
  ]
}
