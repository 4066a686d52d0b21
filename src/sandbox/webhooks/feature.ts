import type {Feature} from '../feature.js'
import {webhookRoutes} from './routes.js'
import {WEBHOOKS_SCHEMA} from './schema.js'
import {WebhookService} from './service.js'

/** Registrations, delivery and its log, listen sessions and the trigger (docs/webhooks.md). */
export const webhooks: Feature = {
  ...WEBHOOKS_SCHEMA,
  serve(context) {
    const service = new WebhookService(context, context.log)
    context.partnerRows.afterDelete((partnerId, which) => {
      if (which === 'all') service.endPartner(partnerId)
    })
    return {routes: webhookRoutes(context, service), attach: (app) => service.attach(app)}
  },
}
