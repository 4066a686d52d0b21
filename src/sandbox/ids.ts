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

/** Resource and request identifiers: a type prefix and 24 random hex characters. */
export const newId = {
  user: () => `usr_${randomHex(12)}`,
  wallet: () => `wal_${randomHex(12)}`,
  event: () => `evt_${randomHex(12)}`,
  request: () => `req_${randomHex(12)}`,
  token: () => `jti_${randomHex(12)}`,
}
