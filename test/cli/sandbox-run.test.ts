import {writeFileSync} from 'node:fs'
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
