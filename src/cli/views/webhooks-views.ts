import {moneyOf} from '../../contract/events/amounts.js'
import type {
  Delivery,
  DeliveryWithAttempts,
  EventDetail,
  EventSummary,
  Loose,
  Webhook,
  WebhookWithSecret,
} from '../../contract/index.js'
import type {ListenEvent} from '../../core/webhooks/index.js'
import {extraRows, known, type Row, recordRows, str, text} from '../rendering/field-readers.js'
import type {Column} from '../rendering/output.js'
import {paint} from '../rendering/terminal.js'
import {currentRuntime} from '../runtime/runtime.js'

/** How webhooks, events, deliveries and a listen session look to a person. */

const DELIVERY_STYLES = {pending: 'yellow', succeeded: 'green', failed: 'red'} as const
export const deliveryStatus = (s: Delivery['status']) => paint(DELIVERY_STYLES[s], s)

export function webhookCard(w: Webhook | WebhookWithSecret): [string, string | undefined][] {
  return [
    ['id', w.id],
    ['url', w.url],
    ['events', w.events.join(', ')],
    ['status', paint('green', w.status)],
    ['signing secret', 'secret' in w ? paint('bold', w.secret) : `whsec_…${w.secretLast4}`],
    ['old secret signs until', w.previousSecretExpiresAt ?? undefined],
    ['created', w.createdAt],
    ['updated', w.updatedAt],
  ]
}

/** A registration as the service answered it: only `url` and `events` are shown by the interface. */
export function registrationCard(w: Loose<WebhookWithSecret>): Row[] {
  const secret = str(w.secret)
  return [
    ['id', known(w.id)],
    ['url', known(w.url)],
    ['events', Array.isArray(w.events) ? w.events.map((e) => known(e)).join(', ') : known(w.events)],
    ['status', w.status === undefined ? undefined : paint('green', known(w.status))],
    ['signing secret', secret ? paint('bold', secret) : paint('yellow', 'not in the answer')],
    ['created', text(w.createdAt)],
    ...extraRows(w, [
      'id',
      'url',
      'events',
      'status',
      'secret',
      'secretLast4',
      'previousSecretExpiresAt',
      'createdAt',
      'updatedAt',
    ]),
  ]
}

export const webhookColumns: Column<Webhook>[] = [
  {header: 'ID', get: (w) => w.id},
  {header: 'URL', get: (w) => w.url},
  {header: 'EVENTS', get: (w) => w.events.join(', ')},
  {header: 'SECRET', get: (w) => `…${w.secretLast4}${w.previousSecretExpiresAt ? ' (rotating)' : ''}`},
  {header: 'CREATED', get: (w) => w.createdAt},
]

function counts(e: EventSummary): string {
  const d = e.deliveries
  if (d.total === 0) return paint('dim', 'none')
  const parts = [
    d.succeeded > 0 ? paint('green', `${d.succeeded} ok`) : '',
    d.pending > 0 ? paint('yellow', `${d.pending} pending`) : '',
    d.failed > 0 ? paint('red', `${d.failed} failed`) : '',
  ]
  return parts.filter((p) => p !== '').join(', ')
}

/** When first, then what: in a narrow terminal the columns from the right go under their row. */
export const eventColumns: Column<EventSummary>[] = [
  {header: 'ID', get: (e) => e.id},
  {header: 'TIME', get: (e) => e.timestamp},
  {header: 'EVENT', get: (e) => e.event, kind: 'name'},
  {header: 'DELIVERIES', get: counts},
]

const target = (d: Delivery) => d.url ?? `listen session ${d.listenSessionId}`

function lastOutcome(d: Delivery): string {
  if (d.lastError !== null) return d.lastError
  return d.lastStatus === null ? '' : `HTTP ${d.lastStatus}`
}

export const deliveryColumns: Column<Delivery>[] = [
  {header: 'DELIVERY', get: (d) => d.id},
  {header: 'TO', get: target},
  {header: 'STATUS', get: (d) => deliveryStatus(d.status)},
  {header: 'ATTEMPTS', get: (d) => String(d.attempts)},
  {header: 'LAST', get: lastOutcome},
  {header: 'NEXT', get: (d) => d.nextAttemptAt ?? ''},
]

/**
 * An event for a person: its data field by field, amounts in major units with their currency, read
 * in the unit the event's record has them in (EVENT_AMOUNTS); `--json` keeps the raw data.
 */
export function eventCard(e: EventDetail): [string, string | undefined][] {
  const unit = moneyOf(e.event)?.unit ?? 'minor'
  return [
    ['id', e.id],
    ['event', e.event],
    ['time', e.timestamp],
    ...recordRows(e.data, unit).map(([k, v]): Row => [`  ${k}`, v]),
  ]
}

/** One line per attempt of a delivery, for `events get`. */
export function attemptLines(d: DeliveryWithAttempts): string[] {
  return d.attemptLog.map((a) => {
    const outcome = a.error ?? (a.status === null ? '' : `HTTP ${a.status}`)
    const ok = a.status !== null && a.status >= 200 && a.status < 300 && a.error === null
    const took = a.durationMs === null ? '' : ` ${a.durationMs} ms`
    const injected = a.injected ? paint('magenta', ` [injected: ${a.injected}]`) : ''
    return `  ${paint('dim', `#${a.attempt}`)} ${a.at} via ${a.via}: ${paint(ok ? 'green' : 'red', outcome || 'no answer')}${took}${injected}`
  })
}

function clock(iso: string): string {
  const d = new Date(iso)
  const pad = (n: number) => String(n).padStart(2, '0')
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`
}

/**
 * The human form of a listen session's events: `stdout` lines are the stream of events and
 * forwards, after the Ready line that opens it; `stderr` lines are about the session itself
 * (reconnecting, warnings).
 */
export function listenLines(
  e: ListenEvent,
  debug: boolean,
  err: {colour: boolean} = currentRuntime().io.err,
): {stdout?: string; stderr?: string} {
  switch (e.type) {
    case 'ready':
    case 'reconnecting':
    case 'reconnected':
      return sessionLines(e, err)
    case 'event': {
      const retry = e.attempt > 1 ? paint('dim', ` (attempt ${e.attempt})`) : ''
      const tampered = e.injected?.includes('tampered signature') === true
      const injected =
        e.injected === undefined ? '' : paint('magenta', ` [injected: ${e.injected.join(', ')}]`)
      const line = `${clock(e.time)}  ${paint('cyan', '-->')} ${paint('bold', e.event)} [${e.eventId}]${retry}${injected}`
      const why = tampered ? ' (tampered on purpose by --tamper-signature: your app should refuse it)' : ''
      return e.signature.valid
        ? {stdout: line}
        : {
            stdout: line,
            stderr: paint(
              'red',
              `  ! signature check failed for ${e.eventId}: ${e.signature.message}${why}`,
              err,
            ),
          }
    }
    case 'forward': {
      const status = e.status === undefined ? 'ERR' : String(e.status)
      const took = e.durationMs === undefined ? '' : ` ${e.durationMs} ms`
      const failure = e.error ?? (e.status === undefined ? 'no answer' : `HTTP ${e.status}`)
      const why = e.ok ? '' : ` ${failure}${paint('dim', ' (the sandbox will retry)')}`
      return {
        stdout: `${clock(e.time)}  ${paint(e.ok ? 'green' : 'red', '<--')} [${paint(e.ok ? 'green' : 'red', status)}] POST ${e.url} [${e.eventId}]${took}${why}`,
      }
    }
    case 'skipped':
      return {
        stdout: paint(
          'dim',
          `${clock(e.time)}  --- ${e.event} [${e.eventId}] not selected by --events: acknowledged, not forwarded`,
        ),
      }
    case 'duplicate':
      return debug
        ? {stderr: paint('dim', `  already handled ${e.deliveryId} (${e.eventId}): acknowledged again`, err)}
        : {}
  }
}

/** The lines about the listen session itself: ready, and a link lost and found again. */
function sessionLines(
  e: Extract<ListenEvent, {type: 'ready' | 'reconnecting' | 'reconnected'}>,
  err: {colour: boolean},
): {stdout?: string; stderr?: string} {
  switch (e.type) {
    case 'ready': {
      // The command adds its --route rules to the ready event.
      const routes = 'routes' in e ? (e.routes as {pattern: string; url: string}[]) : []
      const rest = routes.length > 0 ? 'the rest ' : ''
      const where = [
        ...routes.map((r) => `forwarding ${r.pattern} to ${r.url}`),
        e.forwardTo === null
          ? `printing ${rest === '' ? 'events (add --forward-to URL to send them to your app)' : 'the rest'}`
          : `forwarding ${rest}to ${e.forwardTo}`,
      ].join(', ')
      const waiting =
        e.pending > 0 ? `\n${e.pending} deliveries made while you were away will be replayed.` : ''
      return {
        stdout: `${paint(['green', 'bold'], 'Ready!')} Your webhook signing secret is ${paint('bold', e.secret)} (session ${e.sessionId}, ${where}). Press Ctrl-C to stop.${waiting}`,
      }
    }
    case 'reconnecting': {
      const what = e.wasLinked ? 'Lost the link to the sandbox' : 'Could not open the link to the sandbox'
      const again = e.wasLinked ? 'Reconnecting' : 'Trying again'
      return {
        stderr: paint(
          'yellow',
          `${what} (${e.reason}). ${again} in ${(e.delayMs / 1000).toFixed(1)} s (attempt ${e.attempt})…`,
          err,
        ),
      }
    }
    case 'reconnected': {
      const changed = e.secretChanged
        ? paint(
            'yellow',
            ' The signing secret changed (a different sandbox?): run with --print-secret to see it.',
            err,
          )
        : ''
      const waiting = e.pending > 0 ? ` ${e.pending} deliveries waiting.` : ''
      return {stderr: `${paint('green', 'Reconnected.', err)}${waiting}${changed}`}
    }
  }
}
