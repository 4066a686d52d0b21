import {endpoints} from '../../contract/api/endpoints.js'
import type {NewPartner} from '../../contract/control.js'
import {partnerOf, type RouteSpec, route, type SandboxContext} from '../context.js'
import {ApiError} from '../http/api-error.js'

/**
 * The partners the operator manages: the partner the sandbox started with, signed in with its
 * secret key or a token with the sandbox:admin scope (the route's own check). Any other partner is
 * refused without learning whether another exists (docs/sandbox.md#partners).
 */
export function partnerRoutes({
  partners,
  partnerRows,
}: Pick<SandboxContext, 'partners' | 'partnerRows'>): RouteSpec[] {
  const requireOperator = (input: Parameters<typeof partnerOf>[0]): void => {
    if (partnerOf(input) !== partners.operator) {
      throw new ApiError(
        'INSUFFICIENT_PERMISSIONS',
        "Only the sandbox's operator (the partner it was started with) manages partners",
      )
    }
  }
  return [
    route({
      endpoint: endpoints.createPartner,
      run(input): NewPartner {
        requireOperator(input)
        const created = partners.create(input.body.name, new Date().toISOString())
        if (created === undefined) {
          throw new ApiError('PARTNER_EXISTS', `A partner named ${input.body.name} exists already`, {
            field: 'name',
            value: input.body.name,
          })
        }
        const {credentials, entry} = created
        return {
          ...entry,
          apiKey: credentials.apiKey,
          apiSecret: credentials.apiSecret,
          secretKey: credentials.secretKey,
        }
      },
    }),
    route({
      endpoint: endpoints.listPartners,
      run(input) {
        requireOperator(input)
        return {data: partners.list()}
      },
    }),
    route({
      endpoint: endpoints.deletePartner,
      run(input) {
        requireOperator(input)
        const entry = partners.byName(input.params.name)
        if (entry === undefined) throw new ApiError('NOT_FOUND', `No partner named ${input.params.name}`)
        if (entry.operator) {
          throw new ApiError(
            'INVALID_STATE_TRANSITION',
            'The operator is the partner the sandbox runs for and cannot be deleted; stop the sandbox, or start it afresh with another --data',
          )
        }
        // Every row, found from the tables' ties; what it keeps in memory follows (index.ts).
        partnerRows.delete(entry.partnerId, 'all')
        return {name: entry.name, partnerId: entry.partnerId, deleted: true as const}
      },
    }),
  ]
}
