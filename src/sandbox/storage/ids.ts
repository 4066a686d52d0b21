import {randomBytes} from 'node:crypto'

// Ids are drawn on every request (several per transfer); one getrandom call per id showed up in
// profiles, so bytes come from a pool refilled 4 KiB at a time. Each byte is used once.
let pool = Buffer.alloc(0)
let used = 0

/** `bytes` random bytes as lowercase hex (two characters a byte). */
export function randomHex(bytes: number): string {
  if (bytes > 256) return randomBytes(bytes).toString('hex')
  if (used + bytes > pool.length) {
    pool = randomBytes(4096)
    used = 0
  }
  const hex = pool.toString('hex', used, used + bytes)
  used += bytes
  return hex
}

/**
 * 24 hexadecimal characters that sort by creation time: 11 of the millisecond clock, 13 random.
 * For the ids written several times per request (transactions, events): a new row's id then lands
 * at the end of its unique index instead of on a random page, which keeps the pages a commit
 * writes few (a random id dirties a page of its own in every index it is in).
 */
export function timeOrderedHex(): string {
  return Date.now().toString(16).padStart(11, '0') + randomHex(7).slice(1)
}

/**
 * Resource and request identifiers: a type prefix and 24 hex characters, random, or for events
 * time-ordered (see timeOrderedHex).
 */
export const newId = {
  user: () => `usr_${randomHex(12)}`,
  wallet: () => `wal_${randomHex(12)}`,
  event: () => `evt_${timeOrderedHex()}`,
  request: () => `req_${randomHex(12)}`,
  token: () => `jti_${randomHex(12)}`,
}
