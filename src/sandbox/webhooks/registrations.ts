import type {DeliveryFault} from '../../contract/faults.js'
import {
  DEFAULT_ROTATION_OVERLAP_SECONDS,
  unknownEventSelector,
  type Webhook,
  type WebhookList,
  type WebhookWithSecret,
} from '../../contract/webhooks.js'
import type {OperationInput, SandboxContext} from '../context.js'
import {ApiError} from '../http/api-error.js'
import {type EndpointRow, iso} from './rows.js'
import type {WebhookStore} from './store.js'
import {displayUrl, urlProblem} from './url-policy.js'

function toWebhook(row: EndpointRow, now: number): Webhook {
  const overlap = row.previous_secret !== null && (row.previous_secret_expires_at ?? 0) > now
  return {
    id: row.id,
    // Registrations from before URL credentials were refused may hold some: never shown.
    url: displayUrl(row.url),
    events: JSON.parse(row.events) as string[],
    status: 'enabled',
    secretLast4: row.secret.slice(-4),
    previousSecretExpiresAt: overlap ? iso(row.previous_secret_expires_at!) : null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  }
}

function withSecret(row: EndpointRow, now: number): WebhookWithSecret {
  return {...toWebhook(row, now), secret: row.secret}
}

/** Refuse unknown event names, suggesting the closest known one; the selectors without repeats. */
export function checkSelectors(selectors: string[], field: string): string[] {
  const bad = unknownEventSelector(selectors)
  if (bad !== undefined) {
    const hint = bad.suggestion === undefined ? '' : `; did you mean "${bad.suggestion}"?`
    const message = `unknown event "${bad.selector}"${hint}`
    throw new ApiError('VALIDATION_ERROR', `Invalid request body: ${field}: ${message}`, {
      field,
      value: bad.selector,
      ...(bad.suggestion === undefined ? {} : {suggestion: bad.suggestion}),
      issues: [{path: field, code: 'unknown_event', message}],
    })
  }
  return [...new Set(selectors)]
}

/** The partner's registration `id`, or 404. */
export function registrationOf(store: WebhookStore, partnerId: string, id: string): EndpointRow {
  const row = store.endpoint(partnerId, id)
  if (row === undefined) throw new ApiError('NOT_FOUND', `No webhook ${id}`, {resource: 'webhook', id})
  return row
}

/**
 * A partner's webhook registrations (docs/webhooks.md): registering a URL the sandbox will deliver
 * to, reading, deleting, rotating the signing secret, and the delivery fault of a registration.
 */
export class WebhookRegistrations {
  constructor(
    private readonly store: WebhookStore,
    private readonly ctx: Pick<SandboxContext, 'settings' | 'faults'>,
  ) {}

  /** Register a URL for the selected events; the answer is the one to carry the whole secret. */
  create(partnerId: string, body: OperationInput<'createWebhook'>['body']): WebhookWithSecret {
    this.#checkUrl(body.url)
    const events = checkSelectors(body.events, 'events')
    const now = Date.now()
    return withSecret(this.store.createEndpoint(partnerId, body.url, events, now), now)
  }

  list(partnerId: string): WebhookList {
    const now = Date.now()
    return {webhooks: this.store.endpoints(partnerId).map((row) => toWebhook(row, now))}
  }

  get(partnerId: string, id: string): Webhook {
    return toWebhook(registrationOf(this.store, partnerId, id), Date.now())
  }

  /** Delete a registration, its pending deliveries abandoned and its delivery fault removed. */
  delete(partnerId: string, id: string): {id: string; deleted: true} {
    const row = registrationOf(this.store, partnerId, id)
    this.store.deleteEndpoint(row, Date.now())
    this.ctx.faults.removeTarget(row.partner_id, row.id)
    return {id: row.id, deleted: true}
  }

  /** A new signing secret; the old one keeps signing for `expiresIn` seconds (the default overlap when not given). */
  rotateSecret(partnerId: string, id: string, expiresIn: number | undefined): WebhookWithSecret {
    const row = registrationOf(this.store, partnerId, id)
    const now = Date.now()
    return withSecret(this.store.rotateSecret(row, expiresIn ?? DEFAULT_ROTATION_OVERLAP_SECONDS, now), now)
  }

  /** Set the delivery fault of a registration: one effect at least (a seed alone does nothing). */
  addFault(partnerId: string, body: OperationInput<'addDeliveryFault'>['body']): DeliveryFault {
    const {webhookId, ...settings} = body
    if (Object.keys(settings).every((k) => k === 'seed')) {
      throw new ApiError('VALIDATION_ERROR', 'Invalid request body: a delivery fault needs an effect', {
        field: 'duplicate',
        issues: [
          {
            path: '',
            code: 'invalid_fault',
            message: 'give duplicate, reorder, delayMs, failFirst or tamperSignature',
          },
        ],
      })
    }
    const row = registrationOf(this.store, partnerId, webhookId)
    return this.ctx.faults.setDelivery(row.partner_id, {webhookId: row.id}, settings, new Date())
  }

  /** Refuse a URL the sandbox will not deliver to (docs/webhooks.md, "Where deliveries may go"). */
  #checkUrl(url: string): void {
    const problem = urlProblem(url, {exposed: this.ctx.settings.listensBeyondLoopback === true})
    if (problem === undefined) return
    throw new ApiError('VALIDATION_ERROR', `Invalid request body: url: ${problem.message}`, {
      field: 'url',
      issues: [{path: 'url', ...problem}],
    })
  }
}
