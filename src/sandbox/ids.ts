import {randomBytes} from 'node:crypto'

/** `bytes` random bytes as lowercase hex (two characters a byte). */
export function randomHex(bytes: number): string {
  return randomBytes(bytes).toString('hex')
}

/** Resource and request identifiers: a type prefix and 24 random hex characters. */
export const newId = {
  user: () => `usr_${randomHex(12)}`,
  wallet: () => `wal_${randomHex(12)}`,
  event: () => `evt_${randomHex(12)}`,
  request: () => `req_${randomHex(12)}`,
  token: () => `jti_${randomHex(12)}`,
}
