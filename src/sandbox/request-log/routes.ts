import {endpoints} from '../../contract/api/endpoints.js'
import {partnerOf, type RouteSpec, route} from '../context.js'
import type {RequestLogService} from './service.js'

/** GET /_sandbox/logs: the caller's lines of the request log. */
export function requestLogRoutes(service: RequestLogService): RouteSpec[] {
  return [
    route({
      endpoint: endpoints.listRequestLog,
      run: (input) => service.read(partnerOf(input), input.query),
    }),
  ]
}
