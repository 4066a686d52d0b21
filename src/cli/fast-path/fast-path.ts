import {unwrapEnvelope} from '../../contract/api/envelope.js'
import {assertCredentialFitsEnvironment} from '../../core/environments.js'
import {isExactWithoutReviver, parseExact} from '../../core/exact-json.js'
import {firstAttempt} from '../../core/first-attempt.js'
import {operationUrl} from '../../core/operation-url.js'
import {
  credentialFingerprint,
  peekProfileFile,
  type ResolvedProfile,
  resolveProfile,
  storedProfile,
} from '../../core/profile-file.js'
import {redactValue} from '../../core/redact.js'
import {needsRenewal} from '../../core/token-manager.js'
import {
  bypassesProxy,
  type HttpRequest,
  type PriorRequest,
  requestDebugLines,
  requestHeaders,
  responseDebugLines,
} from '../../core/transport.js'
import {toPayctlError} from '../command-errors.js'
import {loadTablesAhead} from '../rendering/output.js'
import {Printer} from '../rendering/printer.js'
import {onStdoutClosed} from '../runtime/io.js'
import {currentRuntime, processRuntime, type Runtime} from '../runtime/runtime.js'
import type {FastRun, Handover} from './fast-table.js'
import {oneCallOf} from './one-call.js'

/**
 * The fast path of a one-call command (fast-start.ts matched its arguments): the profile and its
 * cached token read with payctl's own code, the one GET sent with node:http, the answer checked
 * with the check the build generated from the operation's surface, and the record printed by the
 * command's own entry in ONE_CALL_COMMANDS, all without oclif. Anything unusual is handed to the
 * full CLI (a Handover): before anything is sent, as a plain run; after the service answered (a
 * refusal, a retry to make, a token to renew, a shape the check does not take), with that answer,
 * which the CLI goes on from instead of asking again. Resolves with undefined when it finished the
 * run itself.
 */
export async function runFastPath(run: FastRun): Promise<Handover | undefined> {
  // The process's runtime, or a test's own (main.ts' inRuntime): the run's streams and environment.
  const runtime = currentRuntime()
  const call = oneCallOf(run.command.id)!
  // A user named by email is found first, by a list the fast path does not read.
  if (call.user === true && run.arg.includes('@')) return {}
  const ready = prepare(run, runtime)
  if (ready === undefined) return {}
  const {req, headers} = ready
  const debug = run.flags.debug === true
  const json = run.flags.json === true
  const names = new Set(run.command.flags.map((f) => f.name))
  const out = new Printer(runtime.io, {
    json: () => json,
    debug: () => debug,
    wide: () => run.flags.wide === true,
    describeError: (err) => redactValue(toPayctlError(err).toJSON().error),
    hasFlag: (name) => names.has(name),
  })
  if (runtime === processRuntime()) onStdoutClosed(() => runtime.exit(runtime.exitCode ?? 0))
  // As every command: Ctrl-C says so on stderr and exits 130 (a GET leaves nothing to tell).
  const offInterrupt = runtime.onSignal('SIGINT', () => {
    runtime.io.err.write('\nInterrupted.\n')
    runtime.exit(130)
  })
  try {
    if (debug) for (const line of requestDebugLines(req, headers)) out.debugLine(line)
    // A card's table is printed only without --json (the printer drops it otherwise).
    const onSent = call.tables === true && !json ? loadTablesAhead : undefined
    const attempt = await out.spin(call.spin, () => firstAttempt(req, headers, {onSent}))
    const prior: PriorRequest = {
      method: req.method,
      url: req.url,
      authorization: headers.authorization,
      outcome: attempt,
      announced: debug,
    }
    if (!('response' in attempt)) return {prior}
    const record = recordOf(attempt.response.text, attempt.response.status, run.command.check)
    if (record === undefined) return {prior}
    if (debug) for (const line of responseDebugLines(req, attempt.response)) out.debugLine(line)
    try {
      await call.show(out, record as never, {
        json,
        output: run.flags.output as never,
        columns: run.flags.columns as string | undefined,
        wide: run.flags.wide === true,
      })
    } catch {
      // What printing refused (a column the list does not have) the command says, with its code.
      return {prior}
    }
    if (json) out.json(record)
    return undefined
  } finally {
    offInterrupt()
  }
}

/**
 * The request to send, or undefined where the full CLI must decide: a variable that changes what
 * oclif prints, a profile file or profile it would refuse or write, an environment other than
 * local or sandbox, no cached token fit to send, HTTPS, a proxy that applies.
 */
function prepare(
  run: FastRun,
  runtime: Runtime,
): {req: HttpRequest; headers: Record<string, string>} | undefined {
  const {env} = runtime
  if (env.DEBUG || env.PAYCTL_DEBUG || env.PAYCTL_CONTENT_TYPE) return undefined
  const file = peekProfileFile(runtime.configDir)
  if (file === undefined) return undefined
  let profile: ResolvedProfile
  let url: URL
  try {
    profile = resolveProfile(file, {profile: run.flags.profile as string | undefined}, env)
    // Any other environment is named on stderr before the command acts (BaseCommand.banner).
    if (profile.environment !== 'local' && profile.environment !== 'sandbox') return undefined
    url = operationUrl(profile.baseUrl, run.command.operation, {[run.command.operation.param]: run.arg})
    const bearer = bearerOf(profile, file)
    if (bearer === undefined || url.protocol !== 'http:') return undefined
    assertCredentialFitsEnvironment(bearer, profile.environment, profile.kind, profile.baseUrl)
    const proxied = ['http_proxy', 'HTTP_PROXY', 'https_proxy', 'HTTPS_PROXY'].some((n) => env[n])
    if (proxied && !bypassesProxy(url.toString(), env)) return undefined
    const req: HttpRequest = {
      method: 'GET',
      url: url.toString(),
      headers: {authorization: `Bearer ${bearer}`},
    }
    return {req, headers: requestHeaders(req)}
  } catch {
    return undefined
  }
}

/** The credential the client would send without renewing anything first, if there is one. */
function bearerOf(
  profile: ResolvedProfile,
  file: ReturnType<typeof peekProfileFile> & object,
): string | undefined {
  const auth = profile.auth
  if (auth === undefined) return undefined
  if (auth.variant === 'B') return auth.secretKey
  // As TokenManager.cached(): the file's token, only when it was issued for these credentials.
  const token = profile.stored ? storedProfile(file, profile.name)?.token : undefined
  if (token === undefined || token.for !== credentialFingerprint(auth, profile.baseUrl)) return undefined
  return needsRenewal(token) ? undefined : token.accessToken
}

/**
 * The record of a successful answer, as the client reads it (parseSuccess), or undefined for
 * anything else: not 2xx, an empty body, not JSON, or not what the surface shows.
 */
function recordOf(text: string, status: number, check: (value: unknown) => boolean): unknown {
  if (status < 200 || status >= 300 || text.trim() === '') return undefined
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    return undefined
  }
  const plain = unwrapEnvelope(body)
  if (!check(plain)) return undefined
  return isExactWithoutReviver(text) ? plain : unwrapEnvelope(parseExact(text))
}
