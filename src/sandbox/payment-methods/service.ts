import type {z} from 'zod'
import type {
  AddPaymentMethodSchema,
  PaymentMethod,
  paymentMethodEndpoints,
} from '../../contract/payment-methods.js'
import type {SandboxContext} from '../context.js'
import {ApiError} from '../http/api-error.js'
import {PagedList} from '../http/pagination.js'
import {TEST_TOKENS} from '../money/catalog.js'
import {fromMethodRow, type MethodRow} from '../money/saved-methods.js'

type AddPaymentMethod = z.output<typeof AddPaymentMethodSchema>
type PageQuery = z.output<typeof paymentMethodEndpoints.listPaymentMethods.query>

/** Saved payment methods of users, made from test tokens. */
export class PaymentMethodService {
  readonly #list: PagedList<MethodRow, 'userId'>

  constructor(private readonly deps: Pick<SandboxContext, 'database' | 'clock' | 'money' | 'cursors'>) {
    this.#list = new PagedList(deps.database, deps.cursors, {
      name: 'payment_methods',
      table: 'payment_methods',
      order: 'oldest first',
      filters: {userId: 'user_id = ?'},
    })
  }

  /** A payment method saved from one of the test tokens, which must be of the type asked for. */
  addPaymentMethod(partnerId: string, userId: string, body: AddPaymentMethod): PaymentMethod {
    const template = TEST_TOKENS.get(body.token)
    if (template === undefined) {
      throw new ApiError('INVALID_PAYMENT_METHOD', `Unknown test token ${body.token}`, {
        field: 'token',
        token: body.token,
        supported: [...TEST_TOKENS.keys()],
      })
    }
    if (template.type !== body.type) {
      throw new ApiError(
        'INVALID_PAYMENT_METHOD',
        `Token ${body.token} is a ${template.type} token, not ${body.type}`,
        {
          field: 'type',
          type: body.type,
          tokenType: template.type,
        },
      )
    }
    const now = this.deps.clock.now(partnerId).toISOString()
    return fromMethodRow(this.deps.money.saved.save(partnerId, userId, template, now))
  }

  /** A page of the user's payment methods, oldest first. */
  listPaymentMethods(partnerId: string, userId: string, query: PageQuery) {
    const {rows, hasMore, nextCursor} = this.#list.page(partnerId, {userId}, query)
    return {paymentMethods: rows.map(fromMethodRow), hasMore, nextCursor}
  }

  /**
   * Remove a payment method the user saved; a bank account linked through it goes with it. Its past
   * transactions keep its id; new ones from it are refused (PAYMENT_METHOD_NOT_FOUND).
   */
  removePaymentMethod(partnerId: string, userId: string, methodId: string): {id: string; deleted: true} {
    if (!this.deps.money.saved.remove(partnerId, userId, methodId)) {
      throw new ApiError('NOT_FOUND', `No payment method ${methodId} saved for user ${userId}`, {
        resource: 'payment_method',
        id: methodId,
      })
    }
    return {id: methodId, deleted: true}
  }
}
