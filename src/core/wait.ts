import type {TransactionView} from '../contract/index.js'
import type {PayctlClient} from './client.js'
import {PayctlError} from './errors.js'

const UNSETTLED = new Set(['pending', 'processing'])

/** Whether a transaction has reached a state it will not leave by itself. */
export function isFinal(t: TransactionView): boolean {
  return !UNSETTLED.has(t.status)
}

/**
 * Poll a transaction until it leaves `pending`/`processing`, or fail after `timeoutMs`. Polls
 * quickly at first, then every few seconds.
 */
export async function waitForFinal(
  client: PayctlClient,
  first: TransactionView,
  opts: {timeoutMs: number; onPoll?: (t: TransactionView) => void},
): Promise<TransactionView> {
  const deadline = Date.now() + opts.timeoutMs
  let current = first
  for (let i = 0; !isFinal(current); i++) {
    if (Date.now() >= deadline) {
      throw new PayctlError({
        kind: 'api',
        code: 'WAIT_TIMEOUT',
        message: `transaction ${current.id} is still ${current.status} after ${Math.round(opts.timeoutMs / 1000)} s`,
        details: {id: current.id, status: current.status, estimatedCompletion: current.estimatedCompletion},
        suggestions: [`Try: payctl transactions get ${current.id}`],
      })
    }
    await new Promise((r) => setTimeout(r, Math.min(250 * 2 ** i, 3_000, Math.max(0, deadline - Date.now()))))
    current = await client.call('getTransaction', {params: {id: current.id}})
    opts.onPoll?.(current)
  }
  return current
}
