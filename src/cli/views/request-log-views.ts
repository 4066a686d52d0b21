import type {RequestLogEntry} from '../../contract/request-log.js'
import {STATUS_FILTER} from '../../contract/request-log.js'
import {usageError} from '../../core/errors.js'
import {parseDuration} from '../duration.js'
import type {Row} from '../rendering/field-readers.js'
import {paint} from '../rendering/terminal.js'
import type {OutputStream} from '../runtime/io.js'

/** How the sandbox's request log is read and shown (`payctl sandbox logs`). */

/** `4xx`, `5xx`, `429` or several with commas, checked here so that a typo is a usage error naming the flag. */
export function parseStatusFilter(text: string): string {
  const spec = text.replace(/\s+/g, '')
  if (STATUS_FILTER.test(spec) && spec.length <= 100) return spec.toLowerCase()
  throw usageError(
    `--status "${text}" is not a status filter: use a class or a status, e.g. 4xx, 5xx or 429, several with commas`,
    'INVALID_FLAG',
    {flag: '--status'},
  )
}

/** A request id as errors print it (`req_…`). */
export function parseRequestId(text: string): string {
  const id = text.trim()
  if (/^req_[\w-]{1,60}$/.test(id)) return id
  throw usageError(
    `--request "${text}" is not a request id: give the req_… that an error printed as its request id`,
    'INVALID_FLAG',
    {flag: '--request'},
  )
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3})\d*)?)?$/
const WITH_ZONE = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i

/**
 * `--since`: a span back from now (`90s`, `15m`, `2h`, `7d`), a date (from its midnight), or a
 * date and time; without a zone, in the local time zone (UTC with `utc`). Returns an ISO time.
 */
export function parseSince(text: string, now: number, utc: boolean): string {
  const given = text.trim()
  const refuse = () =>
    usageError(
      `--since "${text}" is not a time: use a span back from now (15m, 2h, 7d), a date (2026-05-01) or a date and time (2026-05-01T12:00)`,
      'INVALID_FLAG',
      {flag: '--since'},
    )
  if (/^\d+\s*[smhd]?$/i.test(given))
    return new Date(now - parseDuration(given, 'since') * 1000).toISOString()
  let time: number
  if (WITH_ZONE.test(given)) time = Date.parse(given.replace(' ', 'T'))
  else {
    const parts = (DATE.exec(given) ?? DATE_TIME.exec(given))?.slice(1).map((p) => Number(p ?? 0))
    if (parts === undefined) throw refuse()
    const [y, mo, d, h = 0, mi = 0, s = 0, ms = 0] = parts as number[]
    const fields = [y as number, (mo as number) - 1, d as number, h, mi, s, ms] as const
    time = utc ? Date.UTC(...fields) : new Date(...fields).getTime()
  }
  if (!Number.isFinite(time)) throw refuse()
  return new Date(time).toISOString()
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0')

/** The parts of a time, in UTC or the local time zone. */
function partsOf(time: string, utc: boolean) {
  const t = new Date(time)
  return utc
    ? {
        y: t.getUTCFullYear(),
        mo: t.getUTCMonth() + 1,
        d: t.getUTCDate(),
        h: t.getUTCHours(),
        mi: t.getUTCMinutes(),
        s: t.getUTCSeconds(),
        ms: t.getUTCMilliseconds(),
        offset: 0,
      }
    : {
        y: t.getFullYear(),
        mo: t.getMonth() + 1,
        d: t.getDate(),
        h: t.getHours(),
        mi: t.getMinutes(),
        s: t.getSeconds(),
        ms: t.getMilliseconds(),
        offset: -t.getTimezoneOffset(),
      }
}

/** `05-01 12:04:05`: the short form a log line takes. */
export function shortTime(time: string, utc: boolean): string {
  const p = partsOf(time, utc)
  return `${pad(p.mo)}-${pad(p.d)} ${pad(p.h)}:${pad(p.mi)}:${pad(p.s)}`
}

/** `2026-05-01 12:04:05.123 +02:00` (or `… UTC`): the whole time, for a card. */
export function fullTime(time: string, utc: boolean): string {
  const p = partsOf(time, utc)
  const zone = utc
    ? 'UTC'
    : `${p.offset < 0 ? '-' : '+'}${pad(Math.floor(Math.abs(p.offset) / 60))}:${pad(Math.abs(p.offset) % 60)}`
  return `${p.y}-${pad(p.mo)}-${pad(p.d)} ${pad(p.h)}:${pad(p.mi)}:${pad(p.s)}.${pad(p.ms, 3)} ${zone}`
}

const duration = (ms: number) => (ms < 10 ? `${ms.toFixed(1)}ms` : `${Math.round(ms)}ms`)

function statusStyle(status: number): 'green' | 'cyan' | 'yellow' | 'red' {
  if (status >= 500) return 'red'
  if (status >= 400) return 'yellow'
  if (status >= 300) return 'cyan'
  return 'green'
}

/**
 * One request on one line: time, status, method, path, duration, request id, then what went
 * wrong or was special (error code, a replay, an injected fault). Ids are never shortened.
 */
export function logLine(e: RequestLogEntry, utc: boolean, out: OutputStream): string {
  const parts = [
    paint('dim', shortTime(e.time, utc), out),
    paint(statusStyle(e.status), String(e.status), out),
    `${e.method.padEnd(6)} ${e.path}`,
    paint('dim', duration(e.durationMs), out),
    e.requestId,
  ]
  if (e.errorCode !== null) parts.push(paint(statusStyle(e.status), e.errorCode, out))
  if (e.replayed) parts.push(paint('cyan', 'replayed', out))
  if (e.fault !== undefined) parts.push(paint('magenta', `fault: ${e.fault}`, out))
  return parts.join('  ')
}

/** One request, every field, as a card (`sandbox logs --request`). */
export function logCard(e: RequestLogEntry, utc: boolean): Row[] {
  return [
    ['request id', e.requestId],
    ['time', fullTime(e.time, utc)],
    ['partner', e.partner ?? '— (no credential was admitted)'],
    ['request', `${e.method} ${e.path}`],
    ['status', String(e.status)],
    ['error', e.errorCode ?? undefined],
    ['duration', duration(e.durationMs)],
    ['idempotency key', e.idempotencyKey ?? undefined],
    ['replayed', e.replayed ? 'yes: the stored answer of the first request with this key' : undefined],
    ['fault', e.fault],
  ]
}
