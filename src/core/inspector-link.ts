import {INSPECTOR_LINKS, type InspectorLink} from '../contract/inspector.js'
import type {PayctlClient} from './client.js'
import {PayctlError} from './errors.js'

/**
 * A one-time sign-in link to the local sandbox's inspector for the client's partner (docs/inspector.md#sign-in-links):
 * a plain GET of it, within a minute, from this machine, signs a browser in, once.
 */
export async function mintInspectorLink(api: PayctlClient): Promise<InspectorLink> {
  const res = await api.raw('POST', INSPECTOR_LINKS)
  let body: {url?: unknown; expiresAt?: unknown; error?: {code?: unknown; message?: unknown}} = {}
  try {
    body = JSON.parse(res.text) as typeof body
  } catch {
    // Not JSON: said below by its status.
  }
  if (res.status === 201 && typeof body.url === 'string' && typeof body.expiresAt === 'string')
    return {url: body.url, expiresAt: body.expiresAt}
  if (res.status === 404) {
    throw new PayctlError({
      kind: 'api',
      code: 'INSPECTOR_OFF',
      status: 404,
      message:
        'this sandbox serves no inspector (it was started with --no-ui, or is older than sign-in links)',
      suggestions: ['Try: payctl sandbox stop', 'Try: payctl sandbox start --detach'],
    })
  }
  const error = body.error
  throw new PayctlError({
    kind: res.status === 401 ? 'auth' : 'api',
    code: typeof error?.code === 'string' ? error.code : 'UNEXPECTED_RESPONSE',
    status: res.status,
    message:
      typeof error?.message === 'string'
        ? error.message
        : `the sandbox answered ${res.status} to ${INSPECTOR_LINKS}`,
  })
}
