import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {SandboxClient, type SandboxClientOptions, type SeedResult} from '../core/index.js'
import {type RunningSandbox, type SandboxOptions, startSandbox as startServer} from '../sandbox/index.js'

/**
 * `payctl/testing`: the sandbox as one line of a test suite. It starts the sandbox in the test
 * runner's own process (so it ends with it, however the run ends), from a snapshot and with
 * fixtures seeded if asked, and hands back the operator's client: its typed API calls and the
 * sandbox's control routes (partners, snapshots, faults, clock). It is the one entry that joins
 * the sandbox and the client: `payctl/sandbox` is the server alone, `payctl` the client alone
 * (docs/library.md).
 */

export type {
  ClockAdvance,
  PartnerCredentials,
  SandboxClient,
  SandboxClientOptions,
  SandboxConnection,
  SeedResult,
} from '../core/index.js'
export {connect, sandboxClient} from '../core/index.js'
export type {RunningSandbox, SandboxOptions} from '../sandbox/index.js'

export interface TestSandboxOptions extends Omit<SandboxOptions, 'fromSnapshot'> {
  /**
   * Start from a snapshot: a snapshot file's path (`snapshots.download()`, `payctl sandbox snapshot
   * save NAME --file PATH`), or `{name}` / `{path}` as `payctl/sandbox` takes it.
   */
  fromSnapshot?: string | SandboxOptions['fromSnapshot']
  /**
   * Fixtures to create for the operator once started, one after another, as `payctl seed` does: a
   * fixture file's path or the document itself, or a list of them. Their ids are in `seeded`.
   */
  seed?: string | object | readonly (string | object)[]
  /** How the operator's client authenticates (`variant`), and its retries, timeouts and waits. */
  client?: SandboxClientOptions
}

/** A sandbox started for a test suite: the operator's client, and the server's address and end. */
export class TestSandbox extends SandboxClient {
  readonly port: number
  readonly host: string
  /** The ids of what `seed` created, by fixture name (`seeded.wallets.alice_usd.id`); empty without. */
  seeded: SeedResult = {}
  readonly #server: RunningSandbox
  readonly #temporary: string | undefined

  constructor(server: RunningSandbox, client: SandboxClientOptions, temporary: string | undefined) {
    super({url: server.url, credentials: server.credentials}, client)
    this.port = server.port
    this.host = server.host
    this.#server = server
    this.#temporary = temporary
  }

  /** Stop the sandbox: its client's connections, the server, and the temporary folder it kept snapshots in. */
  override async close(): Promise<void> {
    await super.close()
    await this.#server.close()
    if (this.#temporary !== undefined) rmSync(this.#temporary, {recursive: true, force: true})
  }
}

/**
 * Start a sandbox for a test suite. Unlike `payctl/sandbox`'s, it listens on a free port (`port:
 * 0`) and applies no rate limits (`rateLimit: 'off'`) unless told otherwise, and a sandbox in
 * memory keeps its snapshots in a temporary folder that `close()` removes.
 */
export async function startSandbox(options: TestSandboxOptions = {}): Promise<TestSandbox> {
  const {fromSnapshot, seed, client = {}, ...rest} = options
  const memory = (rest.data ?? ':memory:') === ':memory:'
  const temporary =
    memory && rest.snapshotDir === undefined ? mkdtempSync(join(tmpdir(), 'payctl-testing-')) : undefined
  let server: RunningSandbox
  try {
    server = await startServer({
      port: 0,
      rateLimit: 'off',
      ...rest,
      ...(temporary === undefined ? {} : {snapshotDir: temporary}),
      ...(fromSnapshot === undefined
        ? {}
        : {fromSnapshot: typeof fromSnapshot === 'string' ? {path: fromSnapshot} : fromSnapshot}),
    })
  } catch (err) {
    if (temporary !== undefined) rmSync(temporary, {recursive: true, force: true})
    throw err
  }
  const sandbox = new TestSandbox(server, client, temporary)
  try {
    const fixtures = seed === undefined ? [] : Array.isArray(seed) ? seed : [seed]
    for (const fixture of fixtures) {
      const ids = await sandbox.seed(fixture as string | object)
      for (const [kind, names] of Object.entries(ids))
        sandbox.seeded[kind] = {...sandbox.seeded[kind], ...names}
    }
  } catch (err) {
    // A sandbox that could not be set up as asked is not left listening.
    await sandbox.close()
    throw err
  }
  return sandbox
}
