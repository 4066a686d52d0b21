import {spawn} from 'node:child_process'
import {once} from 'node:events'
import {existsSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterEach, beforeEach, describe, expect, it} from 'vitest'
import {type Cli, cliEnv, cliFor, listedCount, ROOT} from '../helpers/cli.js'
import {type LocalSandbox, startLocalSandbox} from '../helpers/local-sandbox.js'
import {hasScript} from '../helpers/terminal.js'

/**
 * What only a seed process of its own shows: killed without warning and run again, interrupted
 * with Ctrl-C, drawing its bar in a terminal. The sandbox is served in this process: while the
 * test looks at the journal and signals the seed, the sandbox answers nothing, so the signal lands
 * where the test saw the run, however busy the machine. What seed makes of a fixture, its reruns
 * after a failure and its progress lines are in test/commands (seed-fixtures, seed-reruns).
 */
let sandbox: LocalSandbox
let cli: Cli

beforeEach(async () => {
  sandbox = await startLocalSandbox()
  cli = cliFor(sandbox, {timeoutMs: 60_000})
})
afterEach(async () => {
  await sandbox.stop()
})

describe('payctl seed as a process', () => {
  it('finishes a run killed halfway with exactly the declared records', async () => {
    const fixture = join(sandbox.configDir, 'many.yaml')
    writeFileSync(
      fixture,
      `name: many
users:
  u:
    count: 150
    email: u{{n}}@example.test
    first_name: U
    last_name: N{{n}}
wallets:
  w:
    count: 150
    user: \${users.u[{{i}}].id}
    currency: USD
    initial_balance: 10.00USD
transactions:
  t:
    count: 149
    method: wallet
    amount: 100
    currency: USD
    from: \${wallets.w[{{i}}].id}
    to: \${wallets.w[{{n}}].id}
`,
    )
    const journal = join(sandbox.configDir, 'many.journal')
    const child = spawn(
      process.execPath,
      [
        join(ROOT, 'bin/run.js'),
        'seed',
        fixture,
        '--journal',
        journal,
        '--concurrency',
        '4',
        '--rate',
        'off',
      ],
      {
        env: cliEnv(sandbox.configDir),
        stdio: 'ignore',
      },
    )
    // Kill it once it is well under way, without warning.
    const deadline = Date.now() + 30_000
    while (Date.now() < deadline) {
      const lines = existsSync(journal) ? readFileSync(journal, 'utf8').split('\n').length : 0
      if (lines > 120) break
      await new Promise((r) => setTimeout(r, 20))
    }
    child.kill('SIGKILL')
    await new Promise((r) => child.once('exit', r))
    const partial = readFileSync(journal, 'utf8').trim().split('\n').length
    expect(partial).toBeLessThan(449)

    const r = await cli('seed', fixture, '--journal', journal, '--rate', 'off', '--json')
    expect(r.exitCode, r.stderr).toBe(0)
    // Only progress on stderr: no retries, no warnings.
    expect(r.stderr.split('\n').filter((l) => l && !l.startsWith('Seeding '))).toEqual([])
    const ids = r.json<{wallets: {w: {id: string}[]}}>()
    expect(new Set(ids.wallets.w.map((w) => w.id)).size).toBe(150)
    expect(await listedCount(cli, 'wallets')).toBe(150)
    expect(await listedCount(cli, 'transactions')).toBe(149 * 2 + 150)
  })

  it('on Ctrl-C says that a rerun resumes and with which command, which then resumes', async () => {
    const dir = sandbox.configDir
    writeFileSync(
      join(dir, 'slow.yaml'),
      'name: slow\nusers:\n  u:\n    count: 30\n    email: s{{n}}@example.test\n    first_name: S\n    last_name: N{{n}}\nwallets:\n  w:\n    count: 30\n    user: ${users.u[{{i}}].id}\n    currency: USD\n',
    )
    // The default journal (the config dir's seed/ folder), as a user's run has it.
    const journalled = () => {
      const folder = join(dir, 'seed')
      if (!existsSync(folder)) return 0
      return readdirSync(folder)
        .map((f) => readFileSync(join(folder, f), 'utf8').split('\n').filter(Boolean).length)
        .reduce((a, b) => a + b, 0)
    }
    // Paced (100 records a second), so that the run waits on its pace more than on anything else
    // and takes Ctrl-C at once; given as a relative path, from the fixture's folder, with --fresh,
    // which a rerun must not repeat.
    const child = spawn(
      process.execPath,
      [join(ROOT, 'bin/run.js'), 'seed', 'slow.yaml', '--fresh', '--rate', '6000'],
      {
        cwd: dir,
        env: cliEnv(dir),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    )
    let stderr = ''
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString()
    })
    const deadline = Date.now() + 30_000
    while (journalled() < 5 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
    child.kill('SIGINT')
    const [code] = await once(child, 'close')
    expect(code, stderr).toBe(130)
    const made = journalled()
    expect(made).toBeLessThan(60)
    expect(stderr).toContain(
      '\nInterrupted. The records created so far are kept; to resume where this run stopped, run:\n  payctl seed slow.yaml --rate 6000\nTo start over instead: payctl sandbox reset, then the same command with --fresh.\n',
    )

    // The line as printed, pasted into a shell in the same folder, resumes: nothing is made twice.
    const command = /resume where this run stopped, run:\n {2}(.*)\n/.exec(stderr)![1]!
    const rerun = spawn('sh', ['-c', `payctl() { "$SEED_NODE" "$SEED_BIN" "$@"; }; ${command}`], {
      cwd: dir,
      env: cliEnv(dir, {SEED_NODE: process.execPath, SEED_BIN: join(ROOT, 'bin/run.js')}),
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    rerun.stdout.on('data', (c: Buffer) => {
      out += c.toString()
    })
    const [rerunCode] = await once(rerun, 'close')
    expect(rerunCode, out).toBe(0)
    expect(out).toContain(`(${made} already existed)`)
    expect(await listedCount(cli, 'wallets')).toBe(30)
  })

  it.runIf(hasScript)('draws a bar in a terminal (a real pseudo-terminal)', async () => {
    const path = join(sandbox.configDir, 'bar.yaml')
    writeFileSync(
      path,
      'name: bar\nusers:\n  b:\n    count: 20\n    email: b{{n}}@example.test\n    first_name: B\n    last_name: N{{n}}\n',
    )
    const command = [process.execPath, join(ROOT, 'bin', 'run.js'), 'seed', path, '--json']
      .map((a) => `'${a}'`)
      .join(' ')
    const child = spawn('script', ['-qec', `stty cols 100; exec ${command} >/dev/null`, '/dev/null'], {
      env: cliEnv(sandbox.configDir, {CI: undefined}),
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString()
    })
    const [code] = await once(child, 'close')
    expect(code).toBe(0)
    expect(out).toMatch(/Seeding \[#+\] 20\/20/)
  })
})
