import {createHash} from 'node:crypto'
import {readFileSync} from 'node:fs'
import {INSPECTOR_PATH} from '../../contract/inspector.js'

/**
 * What the inspector serves besides its data: the HTML around the browser bundle, the sign-in
 * form, the bundle itself (built by `npm run build` into dist/inspector, never fetched from
 * elsewhere), and the headers every answer of the inspector carries.
 */

/**
 * Only what the sandbox itself serves: no inline script or style (so an injected value can run
 * nothing), no other origin, no frames, forms posting only here.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ')

/** The headers of every answer of the inspector, its pages, data, assets and errors alike. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  // Not no-referrer: under it a form's POST carries `Origin: null`, which the sign-in refuses.
  'referrer-policy': 'same-origin',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
}

/** Text safe inside HTML, in an element or a quoted attribute. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

const head = (title: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="${assetUrl('inspector.css')}">
<link rel="icon" href="${assetUrl('icon.svg')}" type="image/svg+xml">`

/**
 * JSON that cannot end the element it sits in: every `<` is written `\u003c`, so no value (a
 * user named `</script><script>…`) closes the data block early.
 */
export function inertJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c')
}

/**
 * The page of a signed-in browser: the bundle draws the rest. The CSRF token rides in a meta
 * element (a same-origin page reads it; another site cannot), not in a cookie. `preloaded` is
 * what the page's first reads answer, by address, so that its first table needs no round trip:
 * a data block (`type="application/json"`), which the browser never runs.
 */
export function appPage(
  session: {name: string; partnerId: string; csrfToken: string},
  preloaded: Record<string, unknown> = {},
): string {
  return `${head('Sandbox inspector')}
<meta name="payctl-csrf" content="${escapeHtml(session.csrfToken)}">
<meta name="payctl-partner" content="${escapeHtml(session.name)}">
<meta name="payctl-partner-id" content="${escapeHtml(session.partnerId)}">
<script type="module" src="${assetUrl('inspector.js')}"></script>
<script type="application/json" id="payctl-preload">${inertJson(preloaded)}</script>
</head>
<body>
<div id="app"><p class="loading">Loading the inspector…</p></div>
</body>
</html>
`
}

/** The sign-in form: the partner's API key and secret, once; `next` is where it returns to. */
export function signInPage(next: string, problem?: string): string {
  return `${head('Sign in · Sandbox inspector')}
</head>
<body>
<main class="sign-in" id="main">
<h1>Sandbox inspector</h1>
<p>Sign in with your partner's API key and API secret: <code>payctl sandbox start</code> prints them
(with <code>--show-secrets</code> when detached), and <code>payctl sandbox partners create</code> a partner's own.</p>
<form method="post" action="${INSPECTOR_PATH}/sign-in">
<input type="hidden" name="next" value="${escapeHtml(next)}">
<label for="api-key">API key</label>
<input id="api-key" name="api_key" autocomplete="username" placeholder="pk_test_…" required autofocus>
<label for="api-secret">API secret</label>
<input id="api-secret" name="api_secret" type="password" autocomplete="current-password" placeholder="sk_test_…" required>
${problem === undefined ? '' : `<p class="problem" role="alert">${escapeHtml(problem)}</p>`}
<button type="submit">Sign in</button>
</form>
</main>
</body>
</html>
`
}

/** Where a sign-in may send the browser back to: a page of the inspector, nothing else. */
export function safeNext(next: unknown): string {
  if (typeof next !== 'string') return INSPECTOR_PATH
  const ok = next === INSPECTOR_PATH || (next.startsWith(`${INSPECTOR_PATH}/`) && !next.includes('//'))
  return ok && !/[\\\s]/.test(next) ? next : INSPECTOR_PATH
}

/** The bundle's files, by name, with their types. */
const ASSETS: Record<string, string> = {
  'inspector.js': 'text/javascript; charset=utf-8',
  'inspector.css': 'text/css; charset=utf-8',
  'icon.svg': 'image/svg+xml',
}

/**
 * Where the bundle's files are, first found first: in a build, beside the library's bundle of the
 * sandbox (dist/library, whose `../inspector/` it is), or beside this module in the tsc build (its
 * `inspector/` folder); then, run from src/, the sources of the files the build copies as they
 * are, then the current build's.
 */
const BUNDLE_DIRS = [
  new URL('../inspector/', import.meta.url),
  new URL('../../inspector/', import.meta.url),
  new URL('./browser/', import.meta.url),
  new URL('../../../dist/inspector/', import.meta.url),
]

/** The bundle's files, read once; undefined for a name that is none of them or a build without it. */
export function assetOf(name: string): {type: string; body: Buffer; version: string} | undefined {
  const type = ASSETS[name]
  if (type === undefined) return undefined
  let found = cache.get(name)
  if (found === undefined) {
    const body = BUNDLE_DIRS.map((dir) => readIfThere(new URL(name, dir))).find((b) => b !== undefined)
    if (body === undefined) return undefined
    found = {body, version: createHash('sha256').update(body).digest('base64url').slice(0, 16)}
    cache.set(name, found)
  }
  return {type, ...found}
}

function readIfThere(file: URL): Buffer | undefined {
  try {
    return readFileSync(file)
  } catch {
    return undefined
  }
}
const cache = new Map<string, {body: Buffer; version: string}>()

/**
 * A file's address with its content's hash: the browser keeps it for good (it never asks again
 * before a page can use it), and a new build is a new address.
 */
export function assetUrl(name: string): string {
  const version = assetOf(name)?.version
  return `${INSPECTOR_PATH}/assets/${name}${version === undefined ? '' : `?v=${version}`}`
}
