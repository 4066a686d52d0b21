import {usageError} from '../core/index.js'

const UNITS: Record<string, number> = {s: 1, m: 60, h: 3600, d: 86400}

/** "90", "90s", "15m", "2h", "7d" → seconds. */
export function parseDuration(text: string, flag: string): number {
  const m = /^\s*(\d+)\s*([smhd]?)\s*$/i.exec(text)
  if (!m)
    throw usageError(`--${flag} "${text}" is not a duration: use e.g. 90s, 15m, 2h or 7d`, 'INVALID_DURATION')
  const seconds = Number(m[1]) * (UNITS[(m[2] || 's').toLowerCase()] ?? 1)
  if (seconds <= 0) throw usageError(`--${flag} must be longer than zero`, 'INVALID_DURATION')
  // Hundreds of digits read as Infinity, which would travel on as null or an invalid date.
  if (!Number.isSafeInteger(seconds)) throw usageError(`--${flag} "${text}" is too long`, 'INVALID_DURATION')
  return seconds
}

/** 3725 → "1h 2m", 200000 → "2d 7h". */
export function formatDuration(seconds: number): string {
  if (seconds <= 0) return 'expired'
  const d = Math.floor(seconds / 86400)
  const h = Math.floor((seconds % 86400) / 3600)
  const m = Math.floor((seconds % 3600) / 60)
  const s = Math.floor(seconds % 60)
  if (d) return `${d}d ${h}h`
  if (h) return `${h}h ${m}m`
  if (m) return `${m}m ${s}s`
  return `${s}s`
}
