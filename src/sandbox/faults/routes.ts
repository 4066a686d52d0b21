import {endpoints} from '../../contract/api/endpoints.js'
import {partnerOf, type RouteSpec, route, type SandboxContext} from '../context.js'
import {ApiError} from '../http/api-error.js'
import {addApiFault, listFaults} from './service.js'

/**
 * The control routes of faults on demand. A registration's delivery fault is added by the webhooks
 * feature (POST /_sandbox/faults/deliveries), which knows its registrations; every fault is listed
 * and removed here.
 */
export function faultRoutes(ctx: Pick<SandboxContext, 'faults' | 'cursors'>): RouteSpec[] {
  const {faults} = ctx
  return [
    route({
      endpoint: endpoints.addApiFault,
      run: (input) => addApiFault(ctx, partnerOf(input), input.body),
    }),
    route({
      endpoint: endpoints.listFaults,
      run: (input) => listFaults(ctx, partnerOf(input), input.query),
    }),
    route({
      endpoint: endpoints.removeFault,
      run(input) {
        const {id} = input.params
        if (!faults.remove(partnerOf(input), id)) {
          throw new ApiError('NOT_FOUND', `No fault ${id}`, {resource: 'fault', id})
        }
        return {id, deleted: true as const}
      },
    }),
    route({
      endpoint: endpoints.clearFaults,
      run: (input) => ({cleared: faults.clear(partnerOf(input))}),
    }),
  ]
}
