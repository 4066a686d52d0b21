import type {FastifyInstance} from 'fastify'
import {buildOpenApiDocument} from '../../contract/api/openapi.js'
import {ownUrlOf} from '../http/local-address.js'

/** Where the document is served: at the root, where tools look first, and beside the sandbox's own routes. */
export const OPENAPI_PATHS = ['/openapi.json', '/_sandbox/openapi.json'] as const

/**
 * The OpenAPI document, unauthenticated like the health check, for Postman, Swagger UI and client
 * generators to point at: made once from the endpoint table, its server the address the request
 * reached this sandbox at (a sandbox on port 0 names its own port, not the default's).
 */
export function serveOpenApi(app: FastifyInstance): void {
  let document: Record<string, unknown> | undefined
  const bodies = new Map<string, string>()
  for (const url of OPENAPI_PATHS) {
    app.get(url, (request, reply) => {
      const server = ownUrlOf(request)
      let body = bodies.get(server)
      if (body === undefined) {
        document ??= buildOpenApiDocument()
        const [first] = document.servers as {description: string}[]
        body = JSON.stringify({...document, servers: [{...first, url: server}]})
        // A sandbox is reached at a few addresses at most; a bound keeps it so.
        if (bodies.size < 16) bodies.set(server, body)
      }
      return reply.code(200).type('application/json; charset=utf-8').send(body)
    })
  }
}
