import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {DatabaseSync} from 'node:sqlite'
import {expect} from 'vitest'
import {type Endpoint, endpoints, unwrapEnvelope} from '../../src/contract/index.js'
import {
  type RunningSandbox,
  type SandboxCredentials,
  type SandboxOptions,
  startSandbox,
} from '../../src/sandbox/index.js'

export interface Reply {
  status: number
  headers: Headers
  /** Parsed JSON body (undefined when the body is empty); tests assert on its shape. */
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are checked by expect(), not by types
  body: any
  text: string
}

export interface CallOptions {
  body?: unknown
  /** Raw request body, sent as is (overrides `body`). */
  raw?: string
  /** Bearer credential; `null` sends no Authorization header. */
  auth?: string | null
  headers?: Record<string, string>
}

/** A sandbox started for a test, with a small HTTP client bound to it. */
export class TestSandbox {
  private accessToken: string | undefined

  constructor(readonly sb: RunningSandbox) {}

  get creds() {
    return this.sb.credentials
  }

  async call(method: string, path: string, options: CallOptions = {}): Promise<Reply> {
    const headers: Record<string, string> = {...options.headers}
    const auth = options.auth === undefined ? await this.token() : options.auth
    if (auth !== null) headers.authorization ??= `Bearer ${auth}`
    let body: string | undefined = options.raw
    if (body === undefined && options.body !== undefined) body = JSON.stringify(options.body)
    if (body !== undefined) headers['content-type'] ??= 'application/json'
    const res = await fetch(this.sb.url + path, {method, headers, body})
    const text = await res.text()
    const reply = {
      status: res.status,
      headers: res.headers,
      body: text === '' ? undefined : JSON.parse(text),
      text,
    }
    if (reply.status >= 200 && reply.status < 300) assertSandboxRecord(method, path, reply.body)
    return reply
  }

  get(path: string, options?: CallOptions): Promise<Reply> {
    return this.call('GET', path, options)
  }

  post(path: string, body?: unknown, options: CallOptions = {}): Promise<Reply> {
    return this.call('POST', path, {...options, body})
  }

  /** A Variant A access token with every scope (cached). */
  async token(): Promise<string> {
    this.accessToken ??= (await this.exchange()).body.access_token as string
    return this.accessToken
  }

  exchange(extra: Record<string, unknown> = {}): Promise<Reply> {
    return this.post(
      '/v1/auth/token',
      {
        api_key: this.creds.apiKey,
        api_secret: this.creds.apiSecret,
        partner_id: this.creds.partnerId,
        ...extra,
      },
      {auth: null},
    )
  }

  /** Create a user and return its id. */
  async user(fields: Record<string, unknown> = {}): Promise<string> {
    const res = await this.post('/v1/users', {
      email: 'ada@example.com',
      first_name: 'Ada',
      last_name: 'Lovelace',
      ...fields,
    })
    if (res.status !== 201) throw new Error(`user creation failed: ${res.text}`)
    return (res.body.data ?? res.body).id as string
  }

  close(): Promise<void> {
    return this.sb.close()
  }
}

export async function start(options: SandboxOptions = {}): Promise<TestSandbox> {
  return new TestSandbox(await startSandbox({port: 0, data: ':memory:', ...options}))
}

/** The error code of an answer, whichever of the interface's shapes it takes. */
export function codeOf(reply: Reply): string | undefined {
  const b = reply.body ?? {}
  return typeof b.error === 'object' ? b.error.code : b.code
}

/** A view of the same running sandbox as another partner. */
export function as(t: TestSandbox, credentials: SandboxCredentials): TestSandbox {
  return new TestSandbox({...t.sb, credentials})
}

/** A new partner of `t`'s sandbox, made by its operator, and a view of the sandbox as that partner. */
export async function createPartner(t: TestSandbox, name: string): Promise<TestSandbox> {
  const res = await t.post('/_sandbox/partners', {name}, {auth: t.creds.secretKey})
  expect(res.status, res.text).toBe(201)
  return as(t, res.body)
}

/** A temporary directory for data files, removed by the returned cleanup. */
export function tempDir(): {dir: string; file: string; cleanup: () => void} {
  const dir = mkdtempSync(join(tmpdir(), 'payctl-sandbox-'))
  return {dir, file: join(dir, 'sandbox.db'), cleanup: () => rmSync(dir, {recursive: true, force: true})}
}

/** Read-only query of a sandbox data file, as an outside observer would. */
export function query(file: string, sql: string, ...params: (string | number)[]): Record<string, unknown>[] {
  const db = new DatabaseSync(file, {readOnly: true})
  try {
    return db.prepare(sql).all(...params) as Record<string, unknown>[]
  } finally {
    db.close()
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const ROUTES = Object.values(endpoints as Record<string, Endpoint>).map((endpoint) => ({
  endpoint,
  pattern: new RegExp(
    `^${endpoint.versioned === false ? '' : '/v1'}${endpoint.path.replace(/\{[^}]+\}/g, '[^/]+')}$`,
  ),
}))

/**
 * Every successful answer of the sandbox is its full record, exactly: each field the record names is
 * there with its type, and there is no field the record does not name. The client asks much less
 * of a service (the surface); this keeps the sandbox itself from drifting.
 */
export function assertSandboxRecord(method: string, path: string, body: unknown): void {
  const pathname = path.split('?')[0] ?? path
  const route = ROUTES.find((r) => r.endpoint.method === method && r.pattern.test(pathname))
  if (!route || body === undefined) return
  const data = unwrapEnvelope(body)
  const parsed = route.endpoint.response.safeParse(data)
  if (!parsed.success)
    throw new Error(
      `${method} ${path}: the sandbox's answer is not its ${route.endpoint.operationId} record: ${parsed.error.message}`,
    )
  const extra = extraKeys(data, parsed.data)
  if (extra.length > 0)
    throw new Error(
      `${method} ${path}: the sandbox's answer has fields its record does not name: ${extra.join(', ')}`,
    )
}

/** Keys of `raw` (deeply) that a schema's parse dropped: fields the record does not name. */
function extraKeys(raw: unknown, parsed: unknown, at = ''): string[] {
  if (Array.isArray(raw) && Array.isArray(parsed))
    return raw.flatMap((item, i) => extraKeys(item, parsed[i], `${at}[${i}]`))
  if (raw === null || typeof raw !== 'object' || parsed === null || typeof parsed !== 'object') return []
  return Object.entries(raw).flatMap(([key, value]) =>
    key in parsed
      ? extraKeys(value, (parsed as Record<string, unknown>)[key], `${at}.${key}`)
      : [`${at}.${key}`],
  )
}
