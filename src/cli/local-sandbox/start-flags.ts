import {Flags} from '@oclif/core'
import {corsOriginProblem} from '../../contract/cors-origin.js'
import {usageError} from '../../core/index.js'
import {parseDuration} from '../duration.js'
import type {Env, IOStreams} from '../runtime/io.js'
import {parseSize} from '../size.js'

/**
 * The flags of `sandbox start`, and what they give: its settings, its secrets (from stdin too), and
 * the arguments and environment of the copy `--detach` leaves running, which get the secrets
 * through its environment, never its arguments.
 */

/** Where `sandbox start` also takes its secrets from, and how it hands them to a --detach copy. */
const SECRET_ENV = {apiSecret: 'PAYCTL_SANDBOX_API_SECRET', secretKey: 'PAYCTL_SANDBOX_SECRET_KEY'} as const
const SECRET_FLAGS = ['--api-secret', '--secret-key']

export const sandboxStartFlags = {
  port: Flags.integer({
    summary: 'port to listen on (0 picks a free one)',
    default: 4010,
    min: 0,
    max: 65535,
  }),
  host: Flags.string({summary: 'address to bind (loopback unless you mean it)', default: '127.0.0.1'}),
  data: Flags.string({summary: 'database file, or :memory: (default: sandbox.db in the config dir)'}),
  detach: Flags.boolean({summary: 'run in the background and return once it is ready'}),
  'api-key': Flags.string({summary: 'fix the partner API key (default: reuse or generate)'}),
  'api-secret': Flags.string({
    summary: 'fix the partner API secret; - reads it from stdin',
    env: SECRET_ENV.apiSecret,
  }),
  'partner-id': Flags.string({summary: 'fix the partner id'}),
  'secret-key': Flags.string({
    summary: 'fix the Variant B secret key (must start with test_); - reads it from stdin',
    env: SECRET_ENV.secretKey,
  }),
  'response-shape': Flags.option({options: ['envelope', 'direct'] as const, default: 'envelope'})({
    summary: 'success bodies wrapped in {success, data, meta} (envelope) or bare (direct)',
  }),
  'token-ttl': Flags.string({summary: 'lifetime of access tokens, e.g. 30s, 15m, 7d', default: '7d'}),
  'rate-limit': Flags.option({options: ['spec', 'off'] as const, default: 'spec'})({
    summary: "enforce the spec's rate limits (100/min, 10,000/day) or none (off: for a CI job's own sandbox)",
  }),
  'settle-after': Flags.string({
    summary: 'how long "1-3 days" takes locally: when ACH, wire and crypto payments settle',
    default: '5s',
  }),
  'webhook-retries': Flags.option({options: ['realtime', 'fast'] as const, default: 'realtime'})({
    summary: 'retry failed webhook deliveries as in production (5 s … 10 h) or fast (0.5 s … 1 min)',
  }),
  'from-snapshot': Flags.string({
    summary: "start from a snapshot: a name among the operator's snapshots, or a snapshot file",
    helpValue: 'NAME|PATH',
  }),
  'snapshot-quota': Flags.string({
    summary: 'how much each partner may keep in snapshot files, e.g. 2GiB (at most 100 files)',
    default: '512MiB',
    helpValue: 'SIZE',
  }),
  ui: Flags.boolean({
    summary: 'serve the browser inspector at /_sandbox/ui (--no-ui: none)',
    default: true,
    allowNo: true,
  }),
  cors: Flags.string({
    summary: 'let pages of this origin call the API from a browser (repeat for each; never *)',
    helpValue: 'ORIGIN',
    multiple: true,
  }),
  quiet: Flags.boolean({char: 'q', summary: 'do not log requests to stderr'}),
  'show-secrets': Flags.boolean({
    summary:
      'print the test credentials when detached or piped too, and under --json (they then land in logs)',
  }),
}

/** The durations and sizes of the flags, checked before anything starts. */
export interface StartSettings {
  tokenTtlSeconds: number
  settleAfterSeconds: number
  snapshotBytes: number
}

export function startSettings(f: {
  'token-ttl': string
  'settle-after': string
  'snapshot-quota': string
  cors?: string[] | undefined
}): StartSettings {
  for (const origin of f.cors ?? []) {
    const problem = corsOriginProblem(origin)
    if (problem !== undefined) throw usageError(`--cors ${problem}`, 'INVALID_FLAG', {flag: '--cors'})
  }
  return {
    tokenTtlSeconds: parseDuration(f['token-ttl'], 'token-ttl'),
    settleAfterSeconds: parseDuration(f['settle-after'], 'settle-after'),
    snapshotBytes: parseSize(f['snapshot-quota'], 'snapshot-quota'),
  }
}

export interface StartSecrets {
  apiSecret?: string | undefined
  secretKey?: string | undefined
}

/**
 * The secrets given as flags or variables, with - read from stdin (a line each, api secret first).
 * The variables are read here too (not only by oclif's parser, from the process's environment): the
 * command's environment is the one given to its run.
 */
export function startSecrets(
  f: {'api-secret'?: string | undefined; 'secret-key'?: string | undefined},
  env: Env,
  io: IOStreams,
): StartSecrets {
  const apiSecret = f['api-secret'] ?? env[SECRET_ENV.apiSecret]
  const secretKey = f['secret-key'] ?? env[SECRET_ENV.secretKey]
  if (apiSecret !== '-' && secretKey !== '-') return {apiSecret, secretKey}
  let lines: string[]
  try {
    lines = io.in.readAll().toString('utf8').split(/\r?\n/)
  } catch (err) {
    throw usageError(`cannot read the secret from stdin: ${(err as Error).message}`, 'INVALID_FLAG')
  }
  const next = (flag: string): string => {
    const line = lines.shift()?.trim()
    if (!line)
      throw usageError(`--${flag} - found no line on stdin to read`, 'MISSING_FLAG', {flag: `--${flag}`})
    return line
  }
  return {
    apiSecret: apiSecret === '-' ? next('api-secret') : apiSecret,
    secretKey: secretKey === '-' ? next('secret-key') : secretKey,
  }
}

/**
 * The arguments and environment of the background copy --detach starts: the arguments without
 * --detach and without any secret, the secrets in its environment. Anyone on the machine can read
 * a process's arguments (ps, /proc/PID/cmdline) for its whole life; its environment only its owner can.
 */
export function detachedCopy(
  argv: string[],
  env: Env,
  secrets: StartSecrets,
): {args: string[]; env: NodeJS.ProcessEnv} {
  const copyEnv: NodeJS.ProcessEnv = {...env}
  delete copyEnv[SECRET_ENV.apiSecret]
  delete copyEnv[SECRET_ENV.secretKey]
  if (secrets.apiSecret) copyEnv[SECRET_ENV.apiSecret] = secrets.apiSecret
  if (secrets.secretKey) copyEnv[SECRET_ENV.secretKey] = secrets.secretKey
  return {args: withoutSecrets(argv.filter((a) => a !== '--detach')), env: copyEnv}
}

/** The arguments with every secret flag and its value left out, in each spelling oclif accepts. */
function withoutSecrets(argv: string[]): string[] {
  const out: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? ''
    if (SECRET_FLAGS.includes(arg)) i++
    else if (!SECRET_FLAGS.some((flag) => arg.startsWith(`${flag}=`))) out.push(arg)
  }
  return out
}
