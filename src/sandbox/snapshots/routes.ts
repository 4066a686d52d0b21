import {endpoints} from '../../contract/api/endpoints.js'
import {SNAPSHOT_NAME_RULE, SnapshotName} from '../../contract/snapshots.js'
import {partnerOf, type RouteSpec, route, type SandboxContext} from '../context.js'
import {ApiError} from '../http/api-error.js'
import {readChunk, writeChunk} from './service.js'

/** The snapshot a path names, checked as a body's name is: never a path of the file system. */
function named(input: {params: {name: string}}): string {
  const {name} = input.params
  if (!SnapshotName.safeParse(name).success) {
    const message = `a snapshot's name is ${SNAPSHOT_NAME_RULE}`
    throw new ApiError('VALIDATION_ERROR', message, {
      field: 'name',
      issues: [{path: 'name', code: 'invalid_format', message}],
    })
  }
  return name
}

/**
 * The snapshot routes: each acts on the caller's own snapshots (a folder per partner id), and only
 * the operator saves or restores the whole sandbox.
 */
export function snapshotRoutes(ctx: Pick<SandboxContext, 'snapshots' | 'partners'>): RouteSpec[] {
  const {snapshots, partners} = ctx
  return [
    route({
      endpoint: endpoints.saveSnapshot,
      run(input) {
        const partner = partnerOf(input)
        if (input.body.all === true && partner !== partners.operator) {
          throw new ApiError(
            'INSUFFICIENT_PERMISSIONS',
            "Only the sandbox's operator (the partner it was started with) saves the whole sandbox",
          )
        }
        const scope = input.body.all === true ? 'all' : 'partner'
        return snapshots.save(partner, input.body.name, scope, new Date().toISOString())
      },
    }),
    route({endpoint: endpoints.listSnapshots, run: (input) => ({data: snapshots.list(partnerOf(input))})}),
    route({
      endpoint: endpoints.deleteSnapshot,
      run(input) {
        const name = named(input)
        snapshots.delete(partnerOf(input), name)
        return {name, deleted: true as const}
      },
    }),
    route({
      endpoint: endpoints.restoreSnapshot,
      async run(input) {
        const partner = partnerOf(input)
        const name = named(input)
        const {path} = snapshots.find(partner, name)
        const restored = await snapshots.restore(partner, path, `snapshot ${name}`)
        return {name, ...restored, restored: true as const}
      },
    }),
    route({
      endpoint: endpoints.readSnapshotFile,
      run: (input) => readChunk(snapshots, partnerOf(input), named(input), input.query.offset),
    }),
    route({
      endpoint: endpoints.writeSnapshotFile,
      run: (input) => writeChunk(snapshots, partnerOf(input), named(input), input.body),
    }),
  ]
}
