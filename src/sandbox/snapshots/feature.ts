import type {Feature} from '../feature.js'
import {snapshotRoutes} from './routes.js'

/** Named snapshots of a partner's state or the whole sandbox, and their files (docs/sandbox.md#snapshots). */
export const snapshots: Feature = {
  name: 'snapshots',
  serve: (context) => ({routes: snapshotRoutes(context)}),
}
