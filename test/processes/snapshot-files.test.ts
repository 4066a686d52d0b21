import {spawn} from 'node:child_process'
import {existsSync, mkdirSync, readdirSync, readFileSync, watch} from 'node:fs'
import {join} from 'node:path'
import {DatabaseSync} from 'node:sqlite'
import {describe, expect, test} from 'vitest'
import {type Cli, cliEnv, cliFor, ROOT, tempConfigDir} from '../helpers/cli.js'
import {startLocalSandbox} from '../helpers/local-sandbox.js'
import {startSandboxProcess} from '../helpers/sandbox.js'

async function newUser(cli: Cli, email: string): Promise<string> {
  const res = await cli('users', 'create', '--email', email, '--first-name', 'A', '--last-name', 'B')
  expect(res.exitCode, res.stderr).toBe(0)
  return res.stdout.trim()
}

async function emails(cli: Cli): Promise<string[]> {
  const res = await cli('users', 'list', '--json')
  expect(res.exitCode, res.stderr).toBe(0)
  return res
    .json<{users: {email: string}[]}>()
    .users.map((u) => u.email)
    .sort()
}

/**
 * A data file whose partner has `count` users with long names, as the API writes them: made by a
 * sandbox served in the test, the rows added straight to the file once it is closed.
 */
async function dataFileWithUsers(configDir: string, data: string, count: number): Promise<void> {
  const seeding = await startLocalSandbox({data}, {configDir})
  const {partnerId} = seeding.credentials
  await seeding.stop()
  const db = new DatabaseSync(data)
  try {
    db.prepare(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${count})
       INSERT INTO users (id, partner_id, email, first_name, last_name, created_at)
       SELECT printf('usr_f%023x', i), ?, 'n' || i || '@example.test', 'N', '${'N'.repeat(100)}', '2026-01-01T00:00:00.000Z' FROM n`,
    ).run(partnerId)
  } finally {
    db.close()
  }
}

/** The snapshot files kept for the sandbox of a config dir (a folder per partner). */
function storedFiles(configDir: string): string[] {
  const dir = join(configDir, 'snapshots')
  if (!existsSync(dir)) return []
  return readdirSync(dir, {recursive: true, encoding: 'utf8'}).filter((f) => f.endsWith('.snapshot'))
}

/**
 * Snapshot files and sandbox processes: one started from a file, one killed while it saves, one short
 * of disk. The commands themselves, against a sandbox served in the test:
 * test/commands/snapshot-save-restore.test.ts.
 */
describe('sandbox snapshots, with a sandbox process', () => {
  test('--file carries a snapshot to another sandbox, started from it or restored into it', async () => {
    const files = tempConfigDir()
    // Saved from a sandbox served in the test; started from in a sandbox process of its own.
    const first = await startLocalSandbox()
    const cli = cliFor(first, {timeoutMs: 60_000})
    try {
      await newUser(cli, 'travels@example.test')
      const path = join(files.dir, 'travels.snapshot')
      const saved = await cli('sandbox', 'snapshot', 'save', 'travel', '--file', path)
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
        const there = cliFor(second, {timeoutMs: 60_000})
        expect(await emails(there)).toContain('travels@example.test')
        await newUser(there, 'extra@example.test')
        const restored = await there('sandbox', 'snapshot', 'restore', '--file', path, '--json')
        expect(restored.exitCode, restored.stderr).toBe(0)
        expect(await emails(there)).not.toContain('extra@example.test')
        // A file sent for one restore is not kept there.
        expect((await there('sandbox', 'snapshot', 'list', '--json')).json()).toEqual({data: []})
      } finally {
        await second.stop()
      }
    } finally {
      await first.stop()
      files.cleanup()
    }
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
    // A save of a few thousand rows: long enough to be killed in the middle of.
    const users = 1500
    await dataFileWithUsers(config.dir, data, users)
    try {
      // Each sandbox is sent three saves at once, which it makes one after the other, and is killed
      // at a moment its folder shows: while the first is being written (its temporary file is
      // there), or once the first is whole and the second is being written. The third never starts.
      const rounds: [string, (names: string[]) => boolean][] = [
        ['one', (names) => names.some((n) => n.startsWith('.'))],
        [
          'two',
          (names) =>
            names.includes('two-first.snapshot') && names.some((n) => n.startsWith('.two-second.snapshot')),
        ],
      ]
      for (const [round, killWhen] of rounds) {
        const sandbox = await startSandboxProcess([], {configDir: config.dir, data})
        const auth = {
          authorization: `Bearer ${sandbox.credentials.secretKey}`,
          'content-type': 'application/json',
        }
        const folder = join(`${data}.snapshots`, sandbox.credentials.partnerId)
        mkdirSync(folder, {recursive: true, mode: 0o700})
        const seen = new Set<string>()
        let watcher: ReturnType<typeof watch> | undefined
        const moment = new Promise<void>((resolve) => {
          watcher = watch(folder, (_, name) => {
            if (name !== null) seen.add(name)
            if (killWhen([...seen])) resolve()
          })
        })
        const saves = ['first', 'second', 'third'].map((n) =>
          fetch(`${sandbox.url}/_sandbox/snapshots`, {
            method: 'POST',
            headers: auth,
            body: JSON.stringify({name: `${round}-${n}`}),
          }).catch(() => undefined),
        )
        await moment
        await sandbox.kill('SIGKILL')
        watcher?.close()
        await Promise.all(saves)
      }
      const sandbox = await startSandboxProcess([], {configDir: config.dir, data})
      try {
        const cli = cliFor(sandbox, {timeoutMs: 60_000})
        const listed = (await cli('sandbox', 'snapshot', 'list', '--json')).json<{
          data: {name: string; records: number}[]
        }>()
        // Every file named as a snapshot is one: listed (a whole, readable file) and restorable.
        expect(listed.data.length).toBe(onDisk().length)
        // The save that was whole before the second sandbox was killed is kept.
        expect(listed.data.map((s) => s.name)).toContain('two-first')
        const page = await emails(cli)
        for (const {name, records} of listed.data) {
          expect(records).toBeGreaterThan(users)
          const res = await cli('sandbox', 'snapshot', 'restore', name)
          expect(res.exitCode, res.stderr).toBe(0)
          expect(await emails(cli)).toEqual(page)
        }
      } finally {
        await sandbox.stop()
      }
    } finally {
      config.cleanup()
    }
  }, 120_000)

  test('a full disk (ulimit -f): exit 1 SNAPSHOT_NOT_SAVED, no file left, the earlier snapshot of that name intact', async () => {
    const config = tempConfigDir()
    const child = spawn(
      'bash',
      [
        '-c',
        // 400 kB per file: an empty partner's snapshot fits (about 300 kB), one with 600 users does not.
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
      const cli = cliFor(config.dir, {timeoutMs: 60_000})
      await newUser(cli, 'first@example.test')
      expect((await cli('sandbox', 'snapshot', 'save', 'full')).exitCode).toBe(0)
      const before = storedFiles(config.dir).map((f) => readFileSync(join(config.dir, 'snapshots', f)))
      // Enough users that the next snapshot outgrows the limit (about 550 kB with 600 of them).
      const create = (n: number) =>
        fetch(`${url}/v1/users`, {
          method: 'POST',
          headers: {authorization: `Bearer ${credentials.secretKey}`, 'content-type': 'application/json'},
          body: JSON.stringify({email: `n${n}@example.test`, first_name: 'N', last_name: 'N'.repeat(100)}),
        }).then((r) => expect(r.status).toBe(201))
      for (let i = 0; i < 600; i += 100) await Promise.all(Array.from({length: 100}, (_, j) => create(i + j)))
      const res = await cli('sandbox', 'snapshot', 'save', 'full')
      expect(res.exitCode, res.stderr).toBe(1)
      expect(res.stderr).toContain('SNAPSHOT_NOT_SAVED')
      const dir = join(config.dir, 'snapshots')
      const after = readdirSync(dir, {recursive: true, encoding: 'utf8'})
      expect(after.filter((f) => f.endsWith('.tmp'))).toEqual([])
      expect(storedFiles(config.dir).map((f) => readFileSync(join(dir, f)))).toEqual(before)
      const restored = await cli('sandbox', 'snapshot', 'restore', 'full')
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
  })
})
