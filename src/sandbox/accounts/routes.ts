import type {BankAccount, LinkToken} from '../../contract/accounts.js'
import {endpoints} from '../../contract/endpoints.js'
import {type PathInput, partnerOf, type RouteSpec, route, type SandboxContext} from '../context.js'
import {AccountService} from './service.js'

/** Bank-account links (`accounts`) of users. */
export function accountRoutes(ctx: SandboxContext): RouteSpec[] {
  const accounts = new AccountService(ctx)

  /** The caller's partner and the user of the path, which must be one of its users. */
  function userOf(input: PathInput<'id'>): {partnerId: string; userId: string} {
    const partnerId = partnerOf(input)
    const userId = input.params.id
    accounts.requireUser(partnerId, userId)
    return {partnerId, userId}
  }

  return [
    route({
      endpoint: endpoints.connectAccount,
      run(input): LinkToken {
        const {partnerId, userId} = userOf(input)
        return accounts.connect(partnerId, userId)
      },
    }),
    route({
      endpoint: endpoints.exchangeLinkToken,
      run(input): BankAccount {
        const {partnerId, userId} = userOf(input)
        return accounts.exchange(partnerId, userId, input.body)
      },
    }),
    route({
      endpoint: endpoints.listAccounts,
      run(input) {
        const {partnerId, userId} = userOf(input)
        return accounts.listAccounts(partnerId, userId)
      },
    }),
  ]
}
