/**
 * The records the pages show, as far as they read them: the sandbox's own records (the contract's
 * schemas say the whole of each), amounts as number or, beyond 2^53, bigint.
 */

export type Amount = number | bigint

export interface UserRecord {
  id: string
  email: string
  first_name: string
  last_name: string
  external_id?: string | null
  createdAt?: string
  created_at?: string
}

export interface Balance {
  available: Amount
  pending: Amount
  reserved: Amount
  total: Amount
  currency: string
}

export interface WalletRecord {
  id: string
  userId: string
  currency: string
  label?: string
  status: string
  balance: Balance
  limits?: {daily: Amount; monthly: Amount; transaction: Amount}
  createdAt: string
  updatedAt: string
}

export interface LedgerEntry {
  transactionId: string
  bucket: string
  amount: Amount
  currency: string
  balanceAfter: Balance
  createdAt: string
}

export interface TransactionRecord {
  id: string
  type: string
  status: string
  amount: Amount
  currency: string
  fee?: Amount
  netAmount?: Amount
  method?: string
  sourceWalletId?: string
  destinationWalletId?: string
  paymentMethodId?: string
  description?: string
  metadata?: Record<string, unknown>
  createdAt: string
  completedAt?: string | null
  estimatedCompletion?: string
  failureReason?: string
  pairedTransactionId?: string
  originalTransactionId?: string
}

export interface EventSummary {
  id: string
  event: string
  timestamp: string
  data: Record<string, unknown>
  deliveries: {total: number; succeeded: number; pending: number; failed: number}
}

export interface Attempt {
  at: string
  status: number | null
  error: string | null
  durationMs?: number
}

export interface Delivery {
  id: string
  url?: string | null
  listenSessionId?: string | null
  webhookId?: string | null
  status: string
  attempts: number
  nextAttemptAt?: string | null
  attemptLog: Attempt[]
  createdAt?: string
}

export interface EventDetail extends Omit<EventSummary, 'deliveries'> {
  deliveries: Delivery[]
  deliveryCounts: EventSummary['deliveries']
}

export interface RequestEntry {
  time: string
  method: string
  path: string
  status: number
  durationMs: number
  requestId: string
  idempotencyKey: string | null
  replayed: boolean
  errorCode: string | null
  fault?: string
}

export interface ClockReading {
  now: string
  offsetSeconds: number
  frozen: boolean
}

export interface List<K extends string, T> {
  hasMore: boolean
  nextCursor: string | null
  items: T[]
  key: K
}

/** A paged answer of the API (`{users: […], hasMore, nextCursor}`) as the lists take it. */
export function paged<T>(answer: Record<string, unknown>, field: string): {items: T[]; next: string | null} {
  const next = answer.hasMore === true && typeof answer.nextCursor === 'string' ? answer.nextCursor : null
  return {items: (answer[field] ?? []) as T[], next}
}

/** A line of a user's timeline, as the sandbox tells it (the contract's TimelineLine, timeline.ts). */
export interface TimelineLine {
  at: string
  kind: string
  what: string
  amount?: Amount
  currency?: string
  walletId?: string
  otherSide?: string
  status?: string
  id: string
  source: 'ledger' | 'transaction' | 'event'
  /** The wallet's balance right after the line, where its ledger gives it. */
  balanceAfter?: Balance
  /** How the webhooks about the line's movement fared, in a few words (a line of money). */
  webhook?: string
}
