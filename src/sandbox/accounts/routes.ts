import type {BankAccount, LinkToken} from '../../contract/accounts.js'
import {endpoints} from '../../contract/endpoints.js'
import {type RouteSpec, route, userOfPath} from '../context.js'
import type {Tenants} from '../tenants.js'
import type {AccountService} from './service.js'

/** Bank-account links (`accounts`) of users. */
export function accountRoutes(accounts: AccountService, tenants: Tenants): RouteSpec[] {
  return [
    route({
      endpoint: endpoints.connectAccount,
      run(input): LinkToken {
        const {partnerId, userId} = userOfPath(tenants, input)
        return accounts.connect(partnerId, userId)
      },
    }),
    route({
      endpoint: endpoints.exchangeLinkToken,
      run(input): BankAccount {
        const {partnerId, userId} = userOfPath(tenants, input)
        return accounts.exchange(partnerId, userId, input.body)
      },
    }),
    route({
      endpoint: endpoints.listAccounts,
      run(input) {
        const {partnerId, userId} = userOfPath(tenants, input)
        return accounts.listAccounts(partnerId, userId)
      },
    }),
  ]
}
