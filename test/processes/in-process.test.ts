import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {type CliResult, payctl, runCli, tempConfigDir} from '../helpers/cli.js'
import {type SandboxProcess, startSandboxProcess} from '../helpers/sandbox.js'

/**
 * Most command tests run the CLI in the test's own process (`payctl()`), for speed. Here the same
 * commands run both ways: what the in-process run reports must be what a process of its own prints
 * and exits with, or those tests would prove nothing about the real command.
 */
describe('a command run in-process answers as its own process does', () => {
  let sandbox: SandboxProcess
  let userId: string

  beforeAll(async () => {
    sandbox = await startSandboxProcess()
    const r = await runCli(
      ['users', 'create', '--email', 'same@example.test', '--first-name', 'S', '--last-name', 'Ame'],
      {
        configDir: sandbox.configDir,
      },
    )
    expect(r.exitCode, r.stderr).toBe(0)
    userId = r.stdout.trim()
  })
  afterAll(async () => {
    await sandbox.stop()
  })

  /** The same command run as a process and in-process: the same output and exit code. */
  const same = async (args: string[]) => {
    const own = await runCli(args, {configDir: sandbox.configDir})
    const here = await payctl(args, {configDir: sandbox.configDir})
    // Request ids differ from one call to the next; nothing else may.
    const stable = (text: string) => text.replace(/req_\w+/g, 'req_…')
    expect({exitCode: here.exitCode, stdout: stable(here.stdout), stderr: stable(here.stderr)}).toEqual({
      exitCode: own.exitCode,
      stdout: stable(own.stdout),
      stderr: stable(own.stderr),
    })
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

/**
 * In-process runs change nothing of the test process (its streams, environment, exit code, the
 * config dir), each having a runtime of its own: runs that overlap each get their own output and
 * exit code, the same as each alone.
 */
describe('in-process runs overlap without mixing', () => {
  let sandbox: SandboxProcess
  let userId: string
  const elsewhere = tempConfigDir()

  beforeAll(async () => {
    sandbox = await startSandboxProcess()
    const r = await payctl(
      ['users', 'create', '--email', 'both@example.test', '--first-name', 'B', '--last-name', 'Oth'],
      {configDir: sandbox.configDir},
    )
    expect(r.exitCode, r.stderr).toBe(0)
    userId = r.stdout.trim()
  })
  afterAll(async () => {
    await sandbox.stop()
    elsewhere.cleanup()
  })

  it('gives each of several runs at once its own stdout, stderr and exit code', async () => {
    const runs: [string[], {configDir: string; env?: Record<string, string>}][] = [
      [['users', 'get', userId, '--json'], {configDir: sandbox.configDir}],
      [['users', 'get', userId], {configDir: sandbox.configDir}],
      [['wallets', 'get', 'wal_missing'], {configDir: sandbox.configDir}],
      [['wallets', 'create', '--currency', 'USD'], {configDir: sandbox.configDir}],
      [['wallets', 'create', '--help'], {configDir: sandbox.configDir}],
      [['walets', 'list'], {configDir: sandbox.configDir}],
      // Another config dir, and another environment, in the same moment.
      [['profiles', 'list', '--json'], {configDir: elsewhere.dir}],
      [['profiles', 'list', '--json'], {configDir: sandbox.configDir}],
      [['users', 'get', userId], {configDir: sandbox.configDir, env: {PAYCTL_PROFILE: 'nowhere'}}],
      [
        ['users', 'get', userId],
        {configDir: sandbox.configDir, env: {PAYCTL_SECRET_KEY: 'test_not_this_one'}},
      ],
    ]
    const stable = (r: CliResult) => ({
      exitCode: r.exitCode,
      stdout: r.stdout.replace(/req_\w+/g, 'req_…'),
      stderr: r.stderr.replace(/req_\w+/g, 'req_…'),
    })
    const alone: ReturnType<typeof stable>[] = []
    for (const [args, opts] of runs) alone.push(stable(await payctl(args, opts)))
    // Every kind of answer is there: a record, errors of each exit code, help.
    expect(alone.map((r) => r.exitCode)).toEqual([0, 0, 1, 2, 0, 2, 0, 0, 1, 4])
    expect(alone[0]!.stdout).toContain(userId)
    expect(alone[6]!.stdout).not.toEqual(alone[7]!.stdout)
    for (let round = 0; round < 2; round++) {
      const together = await Promise.all(runs.map(([args, opts]) => payctl(args, opts)))
      expect(together.map(stable)).toEqual(alone)
    }
  })
})
