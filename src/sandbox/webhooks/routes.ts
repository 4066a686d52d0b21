import {endpoints} from '../../contract/api/endpoints.js'
import {partnerOf, type RouteSpec, route, type ServingContext} from '../context.js'
import {DeliveryLog} from './delivery-log.js'
import {ListenSessions} from './listen-sessions.js'
import {WebhookRegistrations} from './registrations.js'
import type {WebhookService} from './service.js'
import {trigger} from './trigger.js'

/** Registrations, the delivery log, listen sessions and the trigger, each served by its service. */
export function webhookRoutes(
  ctx: Pick<
    ServingContext,
    'database' | 'cursors' | 'settings' | 'operation' | 'clock' | 'money' | 'tenants' | 'faults'
  >,
  runtime: WebhookService,
): RouteSpec[] {
  const registrations = new WebhookRegistrations(runtime.store, ctx)
  return [
    ...registrationRoutes(registrations),
    ...listenSessionRoutes(new ListenSessions(runtime, ctx)),
    route({
      // Served here, beside the registrations it names; every fault is listed and removed by the faults feature.
      endpoint: endpoints.addDeliveryFault,
      run: (input) => registrations.addFault(partnerOf(input), input.body),
    }),
    ...deliveryLogRoutes(new DeliveryLog(runtime, ctx)),
    route({
      endpoint: endpoints.sandboxTrigger,
      run: (input) => trigger(ctx, runtime.store, input),
    }),
  ]
}

function registrationRoutes(registrations: WebhookRegistrations): RouteSpec[] {
  return [
    route({
      endpoint: endpoints.createWebhook,
      run: (input) => registrations.create(partnerOf(input), input.body),
    }),
    route({
      endpoint: endpoints.listWebhooks,
      run: (input) => registrations.list(partnerOf(input)),
    }),
    route({
      endpoint: endpoints.getWebhook,
      run: (input) => registrations.get(partnerOf(input), input.params.id),
    }),
    route({
      endpoint: endpoints.deleteWebhook,
      run: (input) => registrations.delete(partnerOf(input), input.params.id),
    }),
    route({
      endpoint: endpoints.rotateWebhookSecret,
      run: (input) => registrations.rotateSecret(partnerOf(input), input.params.id, input.body.expiresIn),
    }),
  ]
}

function listenSessionRoutes(sessions: ListenSessions): RouteSpec[] {
  return [
    route({
      endpoint: endpoints.openListenSession,
      run: (input) => sessions.open(partnerOf(input), input.body),
    }),
    route({
      endpoint: endpoints.endListenSession,
      run: (input) => sessions.end(partnerOf(input), input.params.id),
    }),
  ]
}

function deliveryLogRoutes(log: DeliveryLog): RouteSpec[] {
  return [
    route({
      endpoint: endpoints.listEvents,
      run: (input) => log.list(partnerOf(input), input.query),
    }),
    route({
      endpoint: endpoints.getEvent,
      run: (input) => log.get(partnerOf(input), input.params.id),
    }),
    route({
      endpoint: endpoints.resendEvent,
      run: (input) => log.resend(partnerOf(input), input.params.id, input.body),
    }),
  ]
}
