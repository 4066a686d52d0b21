const KEEP_WRITES = Symbol('keepWrites')

/**
 * Mark an error whose writes must stand although it is thrown: the failure is itself the outcome
 * (a declined card answers 402 and leaves a failed transaction with its event).
 */
export function keepWrites<E extends Error>(err: E): E {
  return Object.assign(err, {[KEEP_WRITES]: true})
}

/** Whether `err` was marked by keepWrites. */
export function keepsWrites(err: unknown): boolean {
  return err !== null && typeof err === 'object' && (err as {[KEEP_WRITES]?: boolean})[KEEP_WRITES] === true
}
