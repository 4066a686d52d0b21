import type {Feature} from '../feature.js'
import {bnplRoutes} from './routes.js'
import {BNPL_SCHEMA, INSTALLMENT_OWNER} from './schema.js'
import {BnplService} from './service.js'

/** Buy now, pay later (`/bnplsvc`); instalments are collected as they fall due on the sandbox clock. */
export const bnpl: Feature = {
  ...BNPL_SCHEMA,
  owners: [INSTALLMENT_OWNER],
  serve(context) {
    const service = new BnplService(context)
    return {routes: bnplRoutes(service), due: (partnerId, nowMs) => service.collectDue(partnerId, nowMs)}
  },
}
