import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {type CliResult, payctl, tempConfigDir} from '../helpers/cli.js'
import {type LocalSandbox, startLocalSandbox} from '../helpers/local-sandbox.js'

/**
 * In-process runs change nothing of the test process (its streams, environment, exit code, the
 * config dir), each having a runtime of its own: runs that overlap each get their own output and
 * exit code, the same as each alone.
 */
describe('in-process runs overlap without mixing', () => {
  let sandbox: LocalSandbox
  let userId: string
  const elsewhere = tempConfigDir()

  beforeAll(async () => {
    sandbox = await startLocalSandbox()
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
