import {endpoints} from '../../contract/endpoints.js'
import {
  AddPaymentMethodSchema,
  type BankAccount,
  ExchangeLinkTokenSchema,
  type LinkToken,
  type PaymentMethod,
} from '../../contract/transactions.js'
import {callerOf, type OperationInput, type RouteSpec, type SandboxContext} from '../context.js'
import {NoBodySchema, parseInput} from '../validation.js'
import {AccountService} from './service.js'

const PageQuerySchema = endpoints.listPaymentMethods.query

/** Bank-account links (`accounts`) and saved payment methods of users. */
export function accountRoutes(ctx: SandboxContext): RouteSpec[] {
  const accounts = new AccountService(ctx)

  /** The caller's partner and the user of the path, which must be one of its users. */
  function userOf(input: OperationInput): {partnerId: string; userId: string} {
    const partnerId = callerOf(input).partner.partnerId
    const userId = input.params.id ?? ''
    accounts.requireUser(partnerId, userId)
    return {partnerId, userId}
  }

  return [
    {
      endpoint: endpoints.connectAccount,
      run(input): LinkToken {
        parseInput(NoBodySchema, input.body, 'request body')
        const {partnerId, userId} = userOf(input)
        return accounts.connect(partnerId, userId)
      },
    },
    {
      endpoint: endpoints.exchangeLinkToken,
      run(input): BankAccount {
        const {partnerId, userId} = userOf(input)
        const body = parseInput(ExchangeLinkTokenSchema, input.body, 'request body')
        return accounts.exchange(partnerId, userId, body)
      },
    },
    {
      endpoint: endpoints.listAccounts,
      run(input) {
        const {partnerId, userId} = userOf(input)
        return accounts.listAccounts(partnerId, userId)
      },
    },
    {
      endpoint: endpoints.addPaymentMethod,
      run(input): PaymentMethod {
        const {partnerId, userId} = userOf(input)
        const body = parseInput(AddPaymentMethodSchema, input.body, 'request body')
        return accounts.addPaymentMethod(partnerId, userId, body)
      },
    },
    {
      endpoint: endpoints.listPaymentMethods,
      run(input) {
        const {partnerId, userId} = userOf(input)
        const query = parseInput(PageQuerySchema, input.query, 'query')
        return accounts.listPaymentMethods(partnerId, userId, query)
      },
    },
  ]
}
