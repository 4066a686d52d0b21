import {join} from 'node:path'
import {snapshotKey} from '../../src/cli/local-sandbox/sandbox-process.js'
import {ProfileStore, saveLocalProfile} from '../../src/core/index.js'
import {type SandboxOptions, startSandbox} from '../../src/sandbox/index.js'
import {tempConfigDir} from './cli.js'
import type {SandboxProcess} from './sandbox.js'

/** A sandbox in this process: a sandbox process's handle but what only a process has (its pid, its signals). */
export type LocalSandbox = Omit<SandboxProcess, 'pid' | 'kill'>

/**
 * A sandbox served from src/ in this process on a free loopback port, with a config dir of its own
 * whose `local` profile points at it: what `payctl sandbox start` leaves behind, for the commands a
 * test runs with `payctl()`, without a process to start (or to leave running). Like
 * `startSandboxProcess` it serves `:memory:` with no rate limit unless told otherwise; what needs
 * the process itself (its signals, its exit, `sandbox.json`, `--detach`) needs that one.
 */
export async function startLocalSandbox(
  options: SandboxOptions = {},
  opts: {configDir?: string; profile?: string} = {},
): Promise<LocalSandbox> {
  const temp = opts.configDir === undefined ? tempConfigDir() : undefined
  const configDir = opts.configDir ?? temp!.dir
  const lines: string[] = []
  const data = options.data ?? ':memory:'
  const sandbox = await startSandbox({
    port: 0,
    rateLimit: 'off',
    // Where `sandbox start` keeps them, and with the key it seals them with.
    ...(data === ':memory:' ? {snapshotDir: join(configDir, 'snapshots')} : {}),
    snapshotKey: snapshotKey(configDir),
    log: (line) => lines.push(line),
    ...options,
    data,
  })
  const {apiKey, apiSecret, partnerId} = sandbox.credentials
  await saveLocalProfile(new ProfileStore(configDir), opts.profile ?? 'local', sandbox.url, {
    variant: 'A',
    apiKey,
    apiSecret,
    partnerId,
  })
  let stopped: Promise<void> | undefined
  const stop = () => {
    stopped ??= sandbox.close().finally(() => temp?.cleanup())
    return stopped
  }
  return {
    url: sandbox.url,
    configDir,
    credentials: sandbox.credentials,
    log: () => `${lines.join('\n')}\n`,
    stop,
  }
}

/**
 * POST `body` to the sandbox's `/v1{path}` with its secret key, for a test's setup that goes
 * straight over HTTP (payctl's output is what is under test): the answer's `data`, or an error.
 */
export async function postToSandbox<T>(
  sandbox: Pick<LocalSandbox, 'url' | 'credentials'>,
  path: string,
  body: unknown,
): Promise<T> {
  const res = await fetch(`${sandbox.url}/v1${path}`, {
    method: 'POST',
    headers: {authorization: `Bearer ${sandbox.credentials.secretKey}`, 'content-type': 'application/json'},
    body: JSON.stringify(body),
  })
  const parsed = (await res.json()) as {data: T}
  if (!res.ok) throw new Error(`POST ${path}: ${JSON.stringify(parsed)}`)
  return parsed.data
}
