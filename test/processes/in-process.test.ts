import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {type CliResult, payctl, payctlBuilt, runCli} from '../helpers/cli.js'
import {type LocalSandbox, startLocalSandbox} from '../helpers/local-sandbox.js'

/**
 * Most command tests run the CLI in the test's own process from src/ (`payctl()`), for speed, and
 * the fast path's tests compare it with the build run in-process (`payctlBuilt()`). Here the same
 * commands run all three ways: what an in-process run reports must be what a process of its own
 * prints and exits with, or those tests would prove nothing about the real command.
 */
describe('a command run in-process answers as its own process does', () => {
  // The commands are what is compared: the sandbox they talk to is served here.
  let sandbox: LocalSandbox
  let userId: string

  beforeAll(async () => {
    sandbox = await startLocalSandbox()
    const r = await payctl(
      ['users', 'create', '--email', 'same@example.test', '--first-name', 'S', '--last-name', 'Ame'],
      {configDir: sandbox.configDir},
    )
    expect(r.exitCode, r.stderr).toBe(0)
    userId = r.stdout.trim()
  })
  afterAll(async () => {
    await sandbox.stop()
  })

  /** The same command run as a process and in-process, from src/ and from the build: the same output and exit code. */
  const same = async (args: string[]) => {
    const own = await runCli(args, {configDir: sandbox.configDir})
    // Request ids differ from one call to the next; nothing else may.
    const stable = (r: CliResult) => ({
      exitCode: r.exitCode,
      stdout: r.stdout.replace(/req_\w+/g, 'req_…'),
      stderr: r.stderr.replace(/req_\w+/g, 'req_…'),
    })
    for (const run of [payctl, payctlBuilt])
      expect(stable(await run(args, {configDir: sandbox.configDir})), run.name).toEqual(stable(own))
  }

  const cases: [string, () => string[]][] = [
    ['a record under --json', () => ['users', 'get', userId, '--json']],
    ['a record as a card', () => ['users', 'get', userId]],
    ['an answer of the service that is an error', () => ['wallets', 'get', 'wal_missing']],
    ['the same error under --json', () => ['wallets', 'get', 'wal_missing', '--json']],
    ['a missing flag, without a terminal', () => ['wallets', 'create', '--currency', 'USD']],
    ['a flag the command does not take', () => ['users', 'get', userId, '--nope']],
    ['an unknown command', () => ['walets', 'list']],
    ['help', () => ['wallets', 'create', '--help']],
    ['an empty list', () => ['transactions', 'list', '--user', userId]],
  ]
  // Each case on its own: they may run at once, as in-process runs may.
  for (const [what, args] of cases) it.concurrent(what, () => same(args()))

  it("a topic's help, and a command of that topic after it in the same process", async () => {
    await same(['wallets'])
    // After a topic's help, in one process, a command of the topic must still be read as one.
    await same(['wallets', 'get'])
  })
})
