import {cpSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, test} from 'vitest'
import {payctl, ROOT, runCli, tempConfigDir} from '../helpers/cli.js'
import {type SandboxProcess, startSandboxProcess} from '../helpers/sandbox.js'

const BIN = join(ROOT, 'bin', 'run.js')

/** A shell command that runs this checkout's payctl with the node running the tests. */
const PAYCTL = `"${process.execPath}" "${BIN}"`

describe('sandbox run: a one-shot sandbox around a command', () => {
  const config = tempConfigDir()
  let snapshot: string
  let source: SandboxProcess

  beforeAll(async () => {
    // A seeded state, saved once as a file: what a CI cache keeps.
    source = await startSandboxProcess([], {configDir: config.dir})
    const made = await payctl(
      ['users', 'create', '--email', 'seeded@example.test', '--first-name', 'S', '--last-name', 'D'],
      {configDir: config.dir},
    )
    expect(made.exitCode, made.stderr).toBe(0)
    snapshot = join(config.dir, 'seeded.snapshot')
    const saved = await payctl(['sandbox', 'snapshot', 'save', 'seeded', '--file', snapshot], {
      configDir: config.dir,
    })
    expect(saved.exitCode, saved.stderr).toBe(0)
  })
  afterAll(async () => {
    await source.stop()
    config.cleanup()
  })

  test("the command gets the sandbox in its environment, payctl's and its own; payctl exits with its code; the sandbox stops", async () => {
    const script = [
      'echo "base=$PAYCTL_BASE_URL api=$PAYCTL_API_URL partner=$PAYCTL_PARTNER_ID"',
      `${PAYCTL} users list --json`,
      'curl -s -o /dev/null -w "%{http_code}\\n" "$PAYCTL_BASE_URL/_sandbox/health" || true',
      'exit 7',
    ].join('; ')
    const res = await runCli(['sandbox', 'run', '--from-snapshot', snapshot, '--', 'sh', '-c', script], {
      configDir: config.dir,
      timeoutMs: 60_000,
    })
    expect(res.exitCode, res.stderr).toBe(7)
    const base = /base=(http:\/\/127\.0\.0\.1:\d+) api=(\S+) partner=(partner_\w+)/.exec(res.stdout)
    expect(base, res.stdout).not.toBeNull()
    expect(base![2]).toBe(`${base![1]}/v1`)
    expect(base![1]).not.toBe(source.url)
    expect(res.stdout).toContain('seeded@example.test')
    // Stopped with the command: nothing listens there any more.
    await expect(fetch(`${base![1]}/_sandbox/health`)).rejects.toThrow()
  })

  test('twice at once on one machine: each run has its own port and state', async () => {
    const script = (email: string) =>
      `${PAYCTL} users create --email ${email} --first-name A --last-name B >/dev/null && ${PAYCTL} users list --json`
    const [one, two] = await Promise.all(
      ['one@example.test', 'two@example.test'].map((email) =>
        runCli(['sandbox', 'run', '--from-snapshot', snapshot, '--', 'sh', '-c', script(email)], {
          configDir: config.dir,
          timeoutMs: 60_000,
        }),
      ),
    )
    expect(one!.exitCode, one!.stderr).toBe(0)
    expect(two!.exitCode, two!.stderr).toBe(0)
    const emails = (out: string) =>
      (JSON.parse(out) as {users: {email: string}[]}).users.map((u) => u.email).sort()
    expect(emails(one!.stdout)).toEqual(['one@example.test', 'seeded@example.test'])
    expect(emails(two!.stdout)).toEqual(['seeded@example.test', 'two@example.test'])
    // The snapshot's sandbox of the config dir was never touched.
    const list = await payctl(['users', 'list', '--json'], {configDir: config.dir})
    expect(emails(list.stdout)).toEqual(['seeded@example.test'])
  })

  test('a command killed by a signal: payctl exits 128 + its number, and the sandbox stops', async () => {
    const res = await runCli(['sandbox', 'run', '--', 'sh', '-c', 'echo "$PAYCTL_BASE_URL"; kill -TERM $$'], {
      configDir: config.dir,
      timeoutMs: 60_000,
    })
    expect(res.exitCode, res.stderr).toBe(143)
    await expect(fetch(`${res.stdout.trim()}/_sandbox/health`)).rejects.toThrow()
    const missing = await runCli(['sandbox', 'run', '--', 'no-such-command-anywhere'], {
      configDir: config.dir,
    })
    expect(missing.exitCode).toBe(127)
    expect(missing.stderr).toContain('no-such-command-anywhere')
  })

  test('--seed seeds it before the command runs', async () => {
    const fixture = join(config.dir, 'one-user.yaml')
    writeFileSync(
      fixture,
      'version: 1\nname: one\nusers:\n  ada:\n    email: ada@example.test\n    first_name: Ada\n    last_name: Lovelace\n',
    )
    const res = await runCli(
      ['sandbox', 'run', '--seed', fixture, '--', 'sh', '-c', `${PAYCTL} users list --json`],
      {
        configDir: config.dir,
        timeoutMs: 60_000,
      },
    )
    expect(res.exitCode, res.stderr).toBe(0)
    expect(res.stdout).toContain('ada@example.test')
  })

  test('no command, or a snapshot nobody saved: exit 2 naming what is missing, nothing started', async () => {
    const none = await runCli(['sandbox', 'run'], {configDir: config.dir})
    expect(none.exitCode).toBe(2)
    expect(none.stderr).toContain('MISSING_COMMAND')
    const empty = await runCli(['sandbox', 'run', '--'], {configDir: config.dir})
    expect(empty.exitCode).toBe(2)
    const missing = await runCli(['sandbox', 'run', '--from-snapshot', 'never-saved', '--', 'true'], {
      configDir: config.dir,
    })
    expect(missing.exitCode).toBe(2)
    expect(missing.stderr).toContain('SNAPSHOT_NOT_FOUND')
    expect(missing.stderr).toContain('payctl sandbox snapshot list')
  })
})

describe('--from-snapshot NAME: among the snapshots of the partner payctl acts for, no other', () => {
  const config = tempConfigDir()
  const data = join(config.dir, 'sandbox.db')
  let sandbox: SandboxProcess
  let otherId: string
  const cli = (args: string[], env: Record<string, string> = {}) =>
    payctl(args, {configDir: config.dir, env, timeoutMs: 60_000})
  const run = (args: string[], env: Record<string, string> = {}, configDir = config.dir) =>
    runCli(
      [
        'sandbox',
        'run',
        ...args,
        '--',
        'sh',
        '-c',
        `echo "partner=$PAYCTL_PARTNER_ID"; ${PAYCTL} users list --json`,
      ],
      {
        configDir,
        env,
        timeoutMs: 60_000,
      },
    )

  beforeAll(async () => {
    // The operator's sandbox on the config dir's own data file, and a partner beside it that saves
    // snapshots of its own through the API, one of them under a name the operator uses too.
    sandbox = await startSandboxProcess([], {configDir: config.dir, data})
    const other = await cli(['sandbox', 'partners', 'create', 'other', '--json'])
    expect(other.exitCode, other.stderr).toBe(0)
    otherId = other.json<{partnerId: string}>().partnerId
    for (const [email, env, names] of [
      ['mine@example.test', {}, ['mine', 'shared']],
      ['theirs@example.test', {PAYCTL_PROFILE: 'other'}, ['theirs', 'shared']],
    ] as const) {
      const made = await cli(
        ['users', 'create', '--email', email, '--first-name', 'A', '--last-name', 'B'],
        env,
      )
      expect(made.exitCode, made.stderr).toBe(0)
      for (const name of names) {
        const saved = await cli(['sandbox', 'snapshot', 'save', name], env)
        expect(saved.exitCode, saved.stderr).toBe(0)
      }
    }
  })
  afterAll(async () => {
    await sandbox.stop()
    config.cleanup()
  })

  test("another partner's name is SNAPSHOT_NOT_FOUND, its credentials never handed to the command; a name both have is the caller's", async () => {
    const theirs = await run(['--from-snapshot', 'theirs'])
    expect(theirs.exitCode, theirs.stderr).toBe(2)
    expect(theirs.stderr).toContain('SNAPSHOT_NOT_FOUND')
    expect(theirs.stdout).not.toContain('partner=')

    const shared = await run(['--from-snapshot', 'shared'])
    expect(shared.exitCode, shared.stderr).toBe(0)
    expect(shared.stdout).toContain(`partner=${sandbox.credentials.partnerId}\n`)
    expect(shared.stdout).toContain('mine@example.test')
    expect(shared.stdout).not.toContain('theirs@example.test')

    // Acting as the other partner, its own are found.
    const asOther = await run(['--from-snapshot', 'theirs'], {PAYCTL_PROFILE: 'other'})
    expect(asOther.exitCode, asOther.stderr).toBe(0)
    expect(asOther.stdout).toContain(`partner=${otherId}\n`)
    expect(asOther.stdout).toContain('theirs@example.test')
  })

  test('with no profile yet, a name is nobody’s (a file’s path still is what it names)', async () => {
    const bare = tempConfigDir()
    try {
      cpSync(`${data}.snapshots`, join(bare.dir, 'sandbox.db.snapshots'), {recursive: true})
      const named = await run(['--from-snapshot', 'mine'], {}, bare.dir)
      expect(named.exitCode, named.stderr).toBe(2)
      expect(named.stderr).toContain('SNAPSHOT_NOT_FOUND')
      expect(named.stderr).toContain('no profile')
      const file = join(bare.dir, 'sandbox.db.snapshots', sandbox.credentials.partnerId, 'mine.snapshot')
      const path = await run(['--from-snapshot', file], {}, bare.dir)
      expect(path.exitCode, path.stderr).toBe(0)
      expect(path.stdout).toContain('mine@example.test')
    } finally {
      bare.cleanup()
    }
  })

  test('sandbox start --from-snapshot NAME restores only the operator’s own', async () => {
    await sandbox.stop()
    const theirs = await runCli(['sandbox', 'start', '--port', '0', '--from-snapshot', 'theirs'], {
      configDir: config.dir,
    })
    expect(theirs.exitCode, theirs.stderr).toBe(2)
    expect(theirs.stderr).toContain('SNAPSHOT_NOT_FOUND')
    sandbox = await startSandboxProcess(['--from-snapshot', 'mine'], {configDir: config.dir, data})
    const list = await cli(['users', 'list', '--json'])
    expect(list.stdout).toContain('mine@example.test')
  })
})
