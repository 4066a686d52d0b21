import {spawn} from 'node:child_process'
import {existsSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, test} from 'vitest'
import {cliEnv, payctl, ROOT, runCli, tempConfigDir} from '../helpers/cli.js'
import {type SandboxProcess, startSandboxProcess} from '../helpers/sandbox.js'

type Cli = (args: string[], env?: Record<string, string>) => ReturnType<typeof payctl>

function cliFor(sandbox: SandboxProcess): Cli {
  return (args, env = {}) => payctl(args, {configDir: sandbox.configDir, env, timeoutMs: 60_000})
}

async function newUser(cli: Cli, email: string, env: Record<string, string> = {}): Promise<string> {
  const res = await cli(['users', 'create', '--email', email, '--first-name', 'A', '--last-name', 'B'], env)
  expect(res.exitCode, res.stderr).toBe(0)
  return res.stdout.trim()
}

async function emails(cli: Cli, env: Record<string, string> = {}): Promise<string[]> {
  const res = await cli(['users', 'list', '--json'], env)
  expect(res.exitCode, res.stderr).toBe(0)
  return res
    .json<{users: {email: string}[]}>()
    .users.map((u) => u.email)
    .sort()
}

/** Create `count` users with long names straight through the API; returns how many. */
async function createUsers(url: string, headers: Record<string, string>, count: number): Promise<number> {
  const create = async (n: number) => {
    const res = await fetch(`${url}/v1/users`, {
      method: 'POST',
      headers,
      body: JSON.stringify({email: `n${n}@example.test`, first_name: 'N', last_name: 'N'.repeat(100)}),
    })
    expect(res.status, await res.text()).toBe(201)
  }
  for (let i = 0; i < count; i += 100) await Promise.all(Array.from({length: 100}, (_, j) => create(i + j)))
  return count
}

/** The snapshot files kept for the sandbox of a config dir (a folder per partner). */
function storedFiles(configDir: string): string[] {
  const dir = join(configDir, 'snapshots')
  if (!existsSync(dir)) return []
  return readdirSync(dir, {recursive: true, encoding: 'utf8'}).filter((f) => f.endsWith('.snapshot'))
}

describe('sandbox snapshots, through the CLI against a sandbox process', () => {
  let sandbox: SandboxProcess
  let cli: Cli
  const files = tempConfigDir()

  beforeAll(async () => {
    sandbox = await startSandboxProcess()
    cli = cliFor(sandbox)
  })
  afterAll(async () => {
    await sandbox.stop()
    files.cleanup()
  })

  test('save, change, restore: the partner is back; another partner is untouched; list and delete', async () => {
    const created = await cli(['sandbox', 'partners', 'create', 'other', '--json'])
    expect(created.exitCode, created.stderr).toBe(0)
    const other = {PAYCTL_PROFILE: 'other'}
    await newUser(cli, 'kept@example.test')
    await newUser(cli, 'theirs@example.test', other)
    const saved = await cli(['sandbox', 'snapshot', 'save', 'base', '--json'])
    expect(saved.exitCode, saved.stderr).toBe(0)
    expect(saved.json()).toMatchObject({name: 'base', scope: 'partner'})
    await newUser(cli, 'later@example.test')
    await newUser(cli, 'theirs-later@example.test', other)

    const restored = await cli(['sandbox', 'snapshot', 'restore', 'base'])
    expect(restored.exitCode, restored.stderr).toBe(0)
    expect(await emails(cli)).toEqual(['kept@example.test'])
    expect(await emails(cli, other)).toEqual(['theirs-later@example.test', 'theirs@example.test'])

    const list = await cli(['sandbox', 'snapshot', 'list'])
    expect(list.stdout).toMatch(/^NAME\s+SCOPE\s+SAVED\s+ROWS\s+SIZE/)
    expect(list.stdout).toMatch(/\nbase\s+partner\s/)
    // reset --to is the same return.
    await newUser(cli, 'again@example.test')
    const reset = await cli(['sandbox', 'reset', '--to', 'base', '--json'])
    expect(reset.exitCode, reset.stderr).toBe(0)
    expect(reset.json()).toEqual({reset: true, snapshot: 'base'})
    expect(await emails(cli)).toEqual(['kept@example.test'])

    expect((await cli(['sandbox', 'snapshot', 'save', 'spare'])).exitCode).toBe(0)
    const deleted = await cli(['sandbox', 'snapshot', 'delete', 'spare'])
    expect(deleted.exitCode, deleted.stderr).toBe(0)
    const again = await cli(['sandbox', 'snapshot', 'delete', 'spare'])
    expect(again.exitCode).toBe(1)
    expect(again.stderr).toContain('NOT_FOUND')
  })

  test('--all is the operator’s: another partner is refused with how to act as the operator', async () => {
    const refused = await cli(['sandbox', 'snapshot', 'save', 'everything', '--all'], {
      PAYCTL_PROFILE: 'other',
    })
    expect(refused.exitCode).toBe(4)
    expect(refused.stderr).toContain('INSUFFICIENT_PERMISSIONS')
    expect(refused.stderr).toContain('--profile local')
    const saved = await cli(['sandbox', 'snapshot', 'save', 'everything', '--all', '--json'])
    expect(saved.exitCode, saved.stderr).toBe(0)
    expect(saved.json()).toMatchObject({scope: 'all'})
  })

  test('--file carries a snapshot to another sandbox, started from it or restored into it', async () => {
    await newUser(cli, 'travels@example.test')
    const path = join(files.dir, 'travels.snapshot')
    const saved = await cli(['sandbox', 'snapshot', 'save', 'travel', '--file', path])
    expect(saved.exitCode, saved.stderr).toBe(0)
    // A SQLite file (the rows) closed by the header's two lines.
    const file = readFileSync(path)
    expect(file.subarray(0, 16).toString('latin1')).toBe('SQLite format 3\0')
    expect(file.subarray(file.lastIndexOf('PAYCTL-SNAPSHOT')).toString()).toMatch(
      /^PAYCTL-SNAPSHOT 3\n\{.*\}\n$/,
    )
    expect(readdirSync(files.dir)).toEqual(['travels.snapshot'])

    const second = await startSandboxProcess(['--from-snapshot', path])
    try {
      const there = cliFor(second)
      expect(await emails(there)).toContain('travels@example.test')
      await newUser(there, 'extra@example.test')
      const restored = await there(['sandbox', 'snapshot', 'restore', '--file', path, '--json'])
      expect(restored.exitCode, restored.stderr).toBe(0)
      expect(await emails(there)).not.toContain('extra@example.test')
      // A file sent for one restore is not kept there.
      expect((await there(['sandbox', 'snapshot', 'list', '--json'])).json()).toEqual({data: []})
    } finally {
      await second.stop()
    }
  })

  test('a truncated, corrupt, newer or foreign file: exit 1, SNAPSHOT_INVALID naming what is wrong, nothing changed', async () => {
    const path = join(files.dir, 'good.snapshot')
    expect((await cli(['sandbox', 'snapshot', 'save', 'good', '--file', path])).exitCode).toBe(0)
    const good = readFileSync(path)
    const trailer = good.lastIndexOf('PAYCTL-SNAPSHOT 3')
    const corrupt = Buffer.from(good)
    corrupt[trailer - 10] = (corrupt[trailer - 10] ?? 0) ^ 0xff
    const newer = Buffer.from(good)
    newer.write('9', trailer + 'PAYCTL-SNAPSHOT '.length, 'latin1')
    const cases: [string, Buffer, RegExp][] = [
      ['truncated', good.subarray(0, good.length - 4096), /truncated/],
      ['corrupt', corrupt, /checksum/],
      ['newer', newer, /newer payctl/],
      ['foreign', Buffer.from('{"users": []}\n'), /not a payctl snapshot/],
    ]
    const before = await emails(cli)
    const stored = (await cli(['sandbox', 'snapshot', 'list', '--json'])).json()
    for (const [name, bytes, reason] of cases) {
      const file = join(files.dir, `${name}.snapshot`)
      writeFileSync(file, bytes)
      const res = await cli(['sandbox', 'snapshot', 'restore', '--file', file])
      expect(res.exitCode, `${name}: ${res.stderr}`).toBe(1)
      expect(res.stderr).toContain('SNAPSHOT_INVALID')
      expect(res.stderr).toContain(file)
      expect(res.stderr).toMatch(reason)
      const started = await runCli(['sandbox', 'start', '--port', '0', '--from-snapshot', file], {
        configDir: tempConfigDir().dir,
      })
      expect(started.exitCode, `${name}: ${started.stderr}`).toBe(1)
      expect(started.stderr).toContain('SNAPSHOT_INVALID')
    }
    expect(await emails(cli)).toEqual(before)
    expect((await cli(['sandbox', 'snapshot', 'list', '--json'])).json()).toEqual(stored)
  })

  test('bad names, a missing --from-snapshot and two restores at once: clear errors, nothing stored lost', async () => {
    const stored = storedFiles(sandbox.configDir).sort()
    for (const name of ['a/b', '..', '../../etc/passwd', 'tab\there', 'x'.repeat(300)]) {
      for (const args of [
        ['sandbox', 'snapshot', 'save', name],
        ['sandbox', 'snapshot', 'restore', name],
        ['sandbox', 'snapshot', 'delete', name],
        ['sandbox', 'reset', '--to', name],
      ]) {
        const res = await cli(args)
        expect(res.exitCode, `${args.join(' ')}: ${res.stderr}`).toBe(2)
        expect(res.stderr).toContain('INVALID_ARGUMENT')
      }
    }
    const missing = await runCli(['sandbox', 'start', '--port', '0', '--from-snapshot', 'never-saved'], {
      configDir: tempConfigDir().dir,
    })
    expect(missing.exitCode, missing.stderr).toBe(2)
    expect(missing.stderr).toContain('SNAPSHOT_NOT_FOUND')
    expect(missing.stderr).toContain('payctl sandbox snapshot list')
    const unknown = await cli(['sandbox', 'snapshot', 'restore', 'never-saved'])
    expect(unknown.exitCode).toBe(1)
    expect(unknown.stderr).toContain('NOT_FOUND')

    // Two restores at once run one after the other, each whole.
    const both = await Promise.all([
      cli(['sandbox', 'snapshot', 'restore', 'base']),
      cli(['sandbox', 'snapshot', 'restore', 'good']),
    ])
    for (const res of both) expect(res.exitCode, res.stderr).toBe(0)
    expect((await emails(cli)).length).toBeGreaterThan(0)
    expect(storedFiles(sandbox.configDir).sort()).toEqual(stored)
  })
})

describe('saving never leaves a partial snapshot', () => {
  test('kill -9 during saves: each name is absent or a whole snapshot, after a restart too', async () => {
    const config = tempConfigDir()
    const data = join(config.dir, 'sandbox.db')
    const onDisk = (): string[] =>
      existsSync(`${data}.snapshots`)
        ? readdirSync(`${data}.snapshots`, {recursive: true, encoding: 'utf8'}).filter(
            (f) => f.endsWith('.snapshot') && !f.split('/').at(-1)!.startsWith('.'),
          )
        : []
    try {
      let users = 0
      // Killed at moments spread over a save of a few thousand rows: before, during, after.
      for (const delayMs of [1, 5, 10, 20, 40, 80, 160]) {
        const sandbox = await startSandboxProcess([], {configDir: config.dir, data})
        const auth = {
          authorization: `Bearer ${sandbox.credentials.secretKey}`,
          'content-type': 'application/json',
        }
        if (users === 0) {
          users = await createUsers(sandbox.url, auth, 3000)
        }
        const save = fetch(`${sandbox.url}/_sandbox/snapshots`, {
          method: 'POST',
          headers: auth,
          body: JSON.stringify({name: `at-${delayMs}`}),
        }).catch(() => undefined)
        await new Promise((resolve) => setTimeout(resolve, delayMs))
        await sandbox.kill('SIGKILL')
        await save
      }
      const sandbox = await startSandboxProcess([], {configDir: config.dir, data})
      try {
        const cli = cliFor(sandbox)
        const listed = (await cli(['sandbox', 'snapshot', 'list', '--json'])).json<{
          data: {name: string; records: number}[]
        }>()
        // Every file named as a snapshot is one: listed (a whole, readable file) and restorable.
        expect(listed.data.length).toBe(onDisk().length)
        const page = await emails(cli)
        for (const {name, records} of listed.data) {
          expect(records).toBeGreaterThan(users)
          const res = await cli(['sandbox', 'snapshot', 'restore', name])
          expect(res.exitCode, res.stderr).toBe(0)
          expect(await emails(cli)).toEqual(page)
        }
      } finally {
        await sandbox.stop()
      }
    } finally {
      config.cleanup()
    }
  }, 180_000)

  test('a full disk (ulimit -f): exit 1 SNAPSHOT_NOT_SAVED, no file left, the earlier snapshot of that name intact', async () => {
    const config = tempConfigDir()
    const child = spawn(
      'bash',
      [
        '-c',
        // 400 kB per file: an empty partner's snapshot fits (about 300 kB), one with a thousand users does not.
        `ulimit -f 400; exec "${process.execPath}" "${join(ROOT, 'bin', 'run.js')}" sandbox start --port 0 --data :memory: --rate-limit off --json --show-secrets`,
      ],
      {env: cliEnv(config.dir), stdio: ['ignore', 'pipe', 'pipe']},
    )
    // Read, or the request log fills the pipe and the sandbox waits on it.
    child.stderr.resume()
    try {
      const {url, credentials} = await new Promise<{url: string; credentials: {secretKey: string}}>(
        (resolve, reject) => {
          let out = ''
          child.stdout.on('data', (c: Buffer) => {
            out += c.toString()
            try {
              resolve(JSON.parse(out) as {url: string; credentials: {secretKey: string}})
            } catch {
              // Not whole yet.
            }
          })
          child.once('exit', (code) => reject(new Error(`sandbox exited with ${code}`)))
        },
      )
      expect(url).toMatch(/^http:/)
      const cli: Cli = (args, env = {}) => payctl(args, {configDir: config.dir, env, timeoutMs: 60_000})
      await newUser(cli, 'first@example.test')
      expect((await cli(['sandbox', 'snapshot', 'save', 'full'])).exitCode).toBe(0)
      const before = storedFiles(config.dir).map((f) => readFileSync(join(config.dir, 'snapshots', f)))
      // Enough users that the next snapshot outgrows the limit.
      const create = (n: number) =>
        fetch(`${url}/v1/users`, {
          method: 'POST',
          headers: {authorization: `Bearer ${credentials.secretKey}`, 'content-type': 'application/json'},
          body: JSON.stringify({email: `n${n}@example.test`, first_name: 'N', last_name: 'N'.repeat(100)}),
        }).then((r) => expect(r.status).toBe(201))
      for (let i = 0; i < 6000; i += 100)
        await Promise.all(Array.from({length: 100}, (_, j) => create(i + j)))
      const res = await cli(['sandbox', 'snapshot', 'save', 'full'])
      expect(res.exitCode, res.stderr).toBe(1)
      expect(res.stderr).toContain('SNAPSHOT_NOT_SAVED')
      const dir = join(config.dir, 'snapshots')
      const after = readdirSync(dir, {recursive: true, encoding: 'utf8'})
      expect(after.filter((f) => f.endsWith('.tmp'))).toEqual([])
      expect(storedFiles(config.dir).map((f) => readFileSync(join(dir, f)))).toEqual(before)
      const restored = await cli(['sandbox', 'snapshot', 'restore', 'full'])
      expect(restored.exitCode, restored.stderr).toBe(0)
      expect(await emails(cli)).toEqual(['first@example.test'])
    } finally {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve))
        child.kill('SIGTERM')
        await exited
      }
      config.cleanup()
    }
  }, 180_000)
})
