import {usageError} from '../core/index.js'

const UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3,
}

/** "512MiB", "2GB", "1048576" → bytes. */
export function parseSize(text: string, flag: string): number {
  const m = /^\s*(\d+)\s*([kmg]i?b|b)?\s*$/i.exec(text)
  const bytes = m === null ? Number.NaN : Number(m[1]) * (UNITS[(m[2] ?? '').toLowerCase()] ?? Number.NaN)
  if (!Number.isSafeInteger(bytes))
    throw usageError(`--${flag} "${text}" is not a size: use e.g. 512MiB, 2GiB or 800MB`, 'INVALID_SIZE')
  return bytes
}
