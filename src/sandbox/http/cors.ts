import cors from '@fastify/cors'
import type {FastifyInstance, FastifyRequest} from 'fastify'
import {INSPECTOR_PATH} from '../../contract/inspector.js'

/** What a page of an allowed origin may send: the API's own request headers. */
const CORS_REQUEST_HEADERS = ['Authorization', 'Content-Type', 'Idempotency-Key', 'X-Request-Id']
/** What it may read of an answer, besides the headers every browser lets it read. */
const CORS_EXPOSED_HEADERS = [
  'X-Request-Id',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'Retry-After',
  'Idempotent-Replayed',
  'Allow',
]
/** How long a browser keeps a preflight's answer (seconds). */
const CORS_MAX_AGE_SECONDS = 600

/**
 * Opt-in CORS for the pages of the origins given (`sandbox start --cors ORIGIN`): a preflight from
 * one of them is answered before authentication, and the API's answers to it say that origin may
 * read them. Credentials (cookies) are never allowed: the API takes its token in Authorization, and
 * the inspector, whose session is a cookie, answers no other origin. Any other origin gets no CORS
 * header at all, so its browser keeps the answer from the page.
 */
export function allowOrigins(app: FastifyInstance, origins: readonly string[]): void {
  if (origins.length === 0) return
  const allowed = new Set(origins)
  const options = {
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: CORS_REQUEST_HEADERS,
    exposedHeaders: CORS_EXPOSED_HEADERS,
    maxAge: CORS_MAX_AGE_SECONDS,
    credentials: false,
    strictPreflight: false,
  }
  app.register(cors, {
    delegator: (request: FastifyRequest, done: (err: Error | null, o: object) => void) => {
      const origin = request.headers.origin
      const inspector = request.url === INSPECTOR_PATH || request.url.startsWith(`${INSPECTOR_PATH}/`)
      done(null, {
        ...options,
        origin: origin !== undefined && allowed.has(origin) && !inspector ? origin : false,
      })
    },
  })
}
