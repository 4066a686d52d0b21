import type {MoneyService} from './service.js'

/** How often the sandbox looks for asynchronous payments that fell due on its clock. */
export const SETTLEMENT_TICK_MS = 200

/**
 * Settle due ACH, wire and crypto payments in the background, as the real service's processor
 * would report them days later. Ticks are cheap (one indexed query) and never keep the process alive.
 */
export function startSettlement(money: MoneyService, log?: (line: string) => void): {stop(): void} {
  const timer = setInterval(() => {
    try {
      money.settleDue()
    } catch (err) {
      // Another process may hold the data file for a moment: the next tick tries again.
      log?.(`settlement failed: ${String(err)}`)
    }
  }, SETTLEMENT_TICK_MS)
  timer.unref()
  return {stop: () => clearInterval(timer)}
}
