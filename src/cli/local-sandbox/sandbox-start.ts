import {mkdirSync} from 'node:fs'
import {join} from 'node:path'
import {INSPECTOR_PATH} from '../../contract/inspector.js'
import {
  isLoopbackHost,
  PayctlError,
  type ProfileStore,
  probeSandbox,
  saveLocalProfile,
} from '../../core/index.js'
import type {Printer} from '../rendering/printer.js'
import {paint} from '../rendering/terminal.js'
import type {OutputStream} from '../runtime/io.js'
import {
  isAlive,
  logPath,
  readState,
  type SandboxStarted,
  sandboxRunning,
  snapshotKey,
  writeState,
} from './sandbox-process.js'
import {snapshotStartFailure} from './snapshot-flags.js'
import type {StartSecrets, StartSettings} from './start-flags.js'

/**
 * What `sandbox start` does around the sandbox it serves: the checks before it starts, its settings,
 * the local profile and state file that let other commands find it, and what it says once it
 * listens, or why it did not start.
 */

/** Snapshot files a partner may keep, whatever their size (docs/sandbox.md#quotas). */
const SNAPSHOT_FILES = 100

/** Refuse a second sandbox of the config dir `dir` while one answers there; make the dir. */
export async function refuseSecondSandbox(dir: string): Promise<void> {
  const running = readState(dir)
  if (running && isAlive(running.pid) && (await probeSandbox(running.url, 1_000)))
    throw sandboxRunning(running)
  mkdirSync(dir, {recursive: true, mode: 0o700})
}

/**
 * Said before detaching (the background copy's stderr goes to a log file) and under --json too:
 * this is about who can reach the credentials, not progress chatter.
 */
export function warnIfExposed(host: string, err: OutputStream): void {
  if (isLoopbackHost(host)) return
  err.write(
    `${paint('yellow', `warning: binding to ${host} exposes the sandbox and its test credentials beyond this machine`, err)}\n`,
  )
}

/** The flags `sandboxOptions` reads. */
export interface ServeFlags {
  port: number
  host: string
  'response-shape': 'envelope' | 'direct'
  'webhook-retries': 'realtime' | 'fast'
  'rate-limit': 'spec' | 'off'
  ui: boolean
  cors?: string[] | undefined
  quiet: boolean
  'api-key'?: string | undefined
  'partner-id'?: string | undefined
}

/** The options of the sandbox `sandbox start` serves in its process, from its flags. */
export function sandboxOptions(
  f: ServeFlags,
  o: {
    dir: string
    data: string
    from: {path: string} | {name: string} | undefined
    settings: StartSettings
    secrets: StartSecrets
    err: OutputStream
  },
) {
  const {data, dir, from, secrets, settings, err} = o
  return {
    // Beside the data file, or in the config dir for :memory: (docs/sandbox.md#snapshots).
    ...(data === ':memory:' ? {snapshotDir: join(dir, 'snapshots')} : {}),
    ...(from === undefined ? {} : {fromSnapshot: from}),
    snapshotKey: snapshotKey(dir),
    snapshotQuota: {files: SNAPSHOT_FILES, bytes: settings.snapshotBytes},
    port: f.port,
    host: f.host,
    data,
    responseShape: f['response-shape'],
    tokenTtlSeconds: settings.tokenTtlSeconds,
    webhookRetries: f['webhook-retries'],
    settleAfterSeconds: settings.settleAfterSeconds,
    rateLimit: f['rate-limit'],
    ui: f.ui,
    cors: f.cors ?? [],
    credentials: {
      ...(f['api-key'] ? {apiKey: f['api-key']} : {}),
      ...(secrets.apiSecret ? {apiSecret: secrets.apiSecret} : {}),
      ...(f['partner-id'] ? {partnerId: f['partner-id']} : {}),
      ...(secrets.secretKey ? {secretKey: secrets.secretKey} : {}),
    },
    log: f.quiet
      ? undefined
      : linesPerTurn(
          (text) => err.write(text),
          (line) => paint('dim', line, err),
        ),
  }
}

/** Lines written together once per turn of the event loop; `flush` writes what waits at once. */
export type TurnLines = ((line: string) => void) & {flush(): void}

/**
 * The lines a running sandbox logs (a line per request), each as `shown` makes it, written once per
 * turn of the event loop: a busy sandbox answers dozens of requests in a turn, and a write of its
 * own for each cost more than the line. The same lines, in the same order.
 */
export function linesPerTurn(write: (text: string) => void, shown: (line: string) => string): TurnLines {
  let waiting = ''
  let timer: NodeJS.Immediate | undefined
  const flush = () => {
    if (timer !== undefined) clearImmediate(timer)
    timer = undefined
    const text = waiting
    waiting = ''
    if (text !== '') write(text)
  }
  return Object.assign(
    (line: string) => {
      waiting += `${shown(line)}\n`
      timer ??= setImmediate(flush)
    },
    {flush},
  )
}

/** Save the local profile and the state file of a sandbox now listening, so other commands find it. */
export async function registerSandbox(
  store: ProfileStore,
  dir: string,
  sandbox: {url: string; host: string; port: number; credentials: SandboxStarted['credentials']},
  o: {profile: string; data: string; ui: boolean; now: number},
): Promise<SandboxStarted> {
  const {credentials: c} = sandbox
  const {profile, data} = o
  await saveLocalProfile(store, profile, sandbox.url, {
    variant: 'A',
    apiKey: c.apiKey,
    apiSecret: c.apiSecret,
    partnerId: c.partnerId,
  })
  const startedAt = new Date(o.now).toISOString()
  const inspector = o.ui ? `${sandbox.url}${INSPECTOR_PATH}` : null
  writeState(dir, {
    pid: process.pid,
    url: sandbox.url,
    host: sandbox.host,
    port: sandbox.port,
    data,
    startedAt,
    credentials: {apiKey: c.apiKey, apiSecret: c.apiSecret, partnerId: c.partnerId},
    profile,
    inspector,
  })
  return {url: sandbox.url, inspector, pid: process.pid, profile, data, credentials: c}
}

/**
 * The --json document of a started sandbox: its API secret and secret key written `[REDACTED]`, as
 * payctl writes every secret it does not show, unless --show-secrets. They are in the profile, and
 * a JSON document on stdout lands in logs as readily as the banner.
 */
export function forOutput(s: SandboxStarted, showSecrets: boolean): SandboxStarted {
  if (showSecrets) return s
  return {...s, credentials: {...s.credentials, apiSecret: '[REDACTED]', secretKey: '[REDACTED]'}}
}

/**
 * A person at a terminal gets the banner with the test credentials on stdout. Detached or piped
 * (a CI log), stdout gets the result alone, the URL, and the banner goes to stderr without the
 * credentials unless --show-secrets: they are in the profile already, and logs are kept.
 */
export function printReady(
  out: Printer,
  s: SandboxStarted,
  o: {shape: string; rateLimit: string; detached: boolean; showSecrets: boolean; dir: string},
): void {
  const io = out.io
  const forPerson = io.out.isTTY && !o.detached
  const stream = forPerson ? io.out : io.err
  const lines = readyLines(s, {
    shape: o.shape,
    rateLimit: o.rateLimit,
    detached: o.detached,
    withSecrets: forPerson || o.showSecrets,
    stream,
    logFile: logPath(o.dir),
  })
  if (forPerson) {
    for (const line of lines) out.log(line)
    return
  }
  io.out.write(`${s.url}\n`)
  io.err.write(`${lines.join('\n')}\n`)
}

/** What `sandbox start` says once it listens; the credentials only when `withSecrets`. */
function readyLines(
  s: SandboxStarted,
  o: {
    shape: string
    rateLimit: string
    detached: boolean
    withSecrets: boolean
    stream: OutputStream
    logFile: string
  },
): string[] {
  const {shape, rateLimit, detached, withSecrets} = o
  const c = s.credentials
  const lines = [
    `${paint('green', '●', o.stream)} payctl sandbox listening on ${paint('bold', s.url, o.stream)}`,
    `  ${shape} responses · rate limit ${rateLimit} · data ${s.data}`,
    // Absent from the JSON of an older payctl's detached child: said only where known.
    ...(s.inspector
      ? [`  inspector ${paint('bold', s.inspector, o.stream)} (sign in with the API key and secret)`]
      : []),
    '',
  ]
  if (withSecrets) {
    lines.push(
      '  Test credentials (local sandbox only):',
      `    partner id   ${c.partnerId}`,
      `    api key      ${c.apiKey}`,
      `    api secret   ${c.apiSecret}`,
      `    secret key   ${c.secretKey}   (Variant B: payctl auth login --env local --secret-key …)`,
      '',
    )
  }
  lines.push(
    `  Profile "${s.profile}" is ready${withSecrets ? '' : ' (its credentials are in the profile file)'}. In another terminal:`,
    '    payctl users create --email ada@example.test --first-name Ada --last-name Lovelace',
    '',
    detached
      ? `  Running in the background (pid ${s.pid}); logs in ${o.logFile}. Stop it with: payctl sandbox stop`
      : '  Press Ctrl-C to stop.',
  )
  return lines
}

/** Why the sandbox did not start: it refuses bad settings (a malformed key, a port in use) with a plain Error. */
export function startFailure(err: unknown, port: number, host: string, from?: string): PayctlError {
  if (err instanceof PayctlError) return err
  const code = (err as {code?: unknown}).code
  if (
    from !== undefined &&
    (code === 'NOT_FOUND' || code === 'SNAPSHOT_INVALID' || code === 'SNAPSHOT_CONFLICT')
  ) {
    return snapshotStartFailure(err as Error & {code: string}, from)
  }
  if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') {
    return new PayctlError({
      kind: 'usage',
      code: 'PORT_IN_USE',
      message: `port ${port} on ${host} is in use`,
      details: {flag: '--port'},
      suggestions: [`Try: payctl sandbox start --port 0 (any free port), or --port ${port + 1}`],
      cause: err,
    })
  }
  return new PayctlError({
    kind: 'usage',
    code:
      (err as NodeJS.ErrnoException).code === 'DATA_FILE_DAMAGED'
        ? 'DATA_FILE_DAMAGED'
        : 'SANDBOX_START_FAILED',
    message: (err as Error).message,
    cause: err,
  })
}
