import {closest} from 'fastest-levenshtein'
import type {Endpoint} from './api/endpoint.js'
import {endpoints} from './api/endpoints.js'

/** The methods a fault's route may name; `*` is any of them. */
export const FAULT_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', '*'] as const

/** A fault's route, read: the endpoints of the table it matches, and the test of a request's path. */
export interface RoutePattern {
  /** `METHOD /v1/path`, as normalised. */
  route: string
  method: (typeof FAULT_METHODS)[number]
  /** The endpoints it matches, as `METHOD /v1/path`. */
  endpoints: string[]
  operationIds: ReadonlySet<string>
  /** Tests the path of a request (without its query) to one of the endpoints. */
  path: RegExp
}

/** How an endpoint's route reads: `POST /v1/transactions`, `GET /_sandbox/health`. */
export function routeOf(endpoint: Endpoint): string {
  return `${endpoint.method} ${endpoint.versioned === false ? '' : '/v1'}${endpoint.path}`
}

/**
 * Whether a fault may hit an endpoint: one whose caller is known before its body is read (a Bearer
 * credential names the partner the fault belongs to), outside the sandbox's own control routes.
 */
function faultable(endpoint: Endpoint): boolean {
  return endpoint.versioned !== false && endpoint.auth !== 'none' && endpoint.auth !== 'credentials'
}

const isParam = (segment: string) => /^\{\w*\}$/.test(segment)
const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** Whether the pattern's path segments cover an endpoint's: a literal may narrow a `{param}`, not the other way. */
function covers(pattern: readonly string[], template: readonly string[]): boolean {
  return (
    pattern.length === template.length &&
    pattern.every((p, i) => {
      const t = template[i] ?? ''
      if (isParam(p)) return isParam(t)
      return isParam(t) || p === t
    })
  )
}

/**
 * Read a route pattern (`POST /v1/transactions`, `* /v1/wallets/{id}`, `/v1/wallets/wal_…`): the
 * endpoints of the table it matches, or why it matches none. The `/v1` prefix may be left out.
 */
export function parseRoutePattern(
  text: string,
): {ok: true; pattern: RoutePattern} | {ok: false; message: string} {
  const parts = text.trim().split(/\s+/)
  const [first = '', second] = parts
  if (parts.length > 2 || first === '') {
    return {
      ok: false,
      message: `"${text}" is not a route: write METHOD /v1/path, e.g. "POST /v1/transactions"`,
    }
  }
  const method = (second === undefined ? '*' : first.toUpperCase()) as RoutePattern['method']
  if (!(FAULT_METHODS as readonly string[]).includes(method)) {
    return {ok: false, message: `"${first}" is not a method: use ${FAULT_METHODS.join(', ')}`}
  }
  let path = (second ?? first).split('?', 1)[0]!.replace(/(.)\/+$/, '$1')
  if (!path.startsWith('/')) path = `/${path}`
  if (path.startsWith('/_sandbox')) {
    return {
      ok: false,
      message: `${path} is a sandbox control route: faults hit the service's own routes (/v1/…)`,
    }
  }
  if (!path.startsWith('/v1/')) path = `/v1${path}`
  const segments = path.slice(3).split('/')
  const matched = (Object.values(endpoints) as Endpoint[]).filter(
    (e) => faultable(e) && (method === '*' || e.method === method) && covers(segments, e.path.split('/')),
  )
  const route = `${method} ${path}`
  if (matched.length === 0) return {ok: false, message: noMatch(route)}
  const regex = segments.map((s) => (isParam(s) ? '[^/]+' : escapeRegex(s))).join('/')
  return {
    ok: true,
    pattern: {
      route,
      method,
      endpoints: matched.map(routeOf),
      operationIds: new Set(matched.map((e) => e.operationId)),
      path: new RegExp(`^/v1${regex}/?$`),
    },
  }
}

function noMatch(route: string): string {
  const known = (Object.values(endpoints) as Endpoint[]).filter(faultable).map(routeOf)
  const hint = closest(route, known)
  return `"${route}" matches no endpoint of the service${hint === undefined ? '' : `; did you mean "${hint}"?`} (the token exchange and the sandbox's own routes cannot be faulted)`
}
