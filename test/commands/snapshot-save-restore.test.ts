import {existsSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, test} from 'vitest'
import {type Cli, cliFor, tempConfigDir} from '../helpers/cli.js'
import {type LocalSandbox, startLocalSandbox} from '../helpers/local-sandbox.js'

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

/** The snapshot files kept for the sandbox of a config dir (a folder per partner). */
function storedFiles(configDir: string): string[] {
  const dir = join(configDir, 'snapshots')
  if (!existsSync(dir)) return []
  return readdirSync(dir, {recursive: true, encoding: 'utf8'}).filter((f) => f.endsWith('.snapshot'))
}

/**
 * `payctl sandbox snapshot …` and `sandbox reset --to`, run from src/ against a sandbox served in the
 * test, which keeps its snapshots where `sandbox start` keeps them. A sandbox process started from a
 * file, killed while saving, or short of disk: test/processes/snapshot-files.test.ts.
 */
describe('sandbox snapshots, through the CLI', () => {
  let sandbox: LocalSandbox
  let cli: Cli
  const files = tempConfigDir()
  /** The config dir of a sandbox that is not running, to start one in. */
  const elsewhere = tempConfigDir()

  beforeAll(async () => {
    sandbox = await startLocalSandbox()
    cli = cliFor(sandbox, {timeoutMs: 60_000})
  })
  afterAll(async () => {
    await sandbox.stop()
    files.cleanup()
    elsewhere.cleanup()
  })

  test('save, change, restore: the partner is back; another partner is untouched; list and delete', async () => {
    const created = await cli('sandbox', 'partners', 'create', 'other', '--json')
    expect(created.exitCode, created.stderr).toBe(0)
    const other = cliFor(sandbox, {env: {PAYCTL_PROFILE: 'other'}})
    await newUser(cli, 'kept@example.test')
    await newUser(other, 'theirs@example.test')
    const saved = await cli('sandbox', 'snapshot', 'save', 'base', '--json')
    expect(saved.exitCode, saved.stderr).toBe(0)
    expect(saved.json()).toMatchObject({name: 'base', scope: 'partner'})
    await newUser(cli, 'later@example.test')
    await newUser(other, 'theirs-later@example.test')

    const restored = await cli('sandbox', 'snapshot', 'restore', 'base')
    expect(restored.exitCode, restored.stderr).toBe(0)
    expect(await emails(cli)).toEqual(['kept@example.test'])
    expect(await emails(other)).toEqual(['theirs-later@example.test', 'theirs@example.test'])

    const list = await cli('sandbox', 'snapshot', 'list')
    expect(list.stdout).toMatch(/^NAME\s+SCOPE\s+SAVED\s+ROWS\s+SIZE/)
    expect(list.stdout).toMatch(/\nbase\s+partner\s/)
    // reset --to is the same return.
    await newUser(cli, 'again@example.test')
    const reset = await cli('sandbox', 'reset', '--to', 'base', '--json')
    expect(reset.exitCode, reset.stderr).toBe(0)
    expect(reset.json()).toEqual({reset: true, snapshot: 'base'})
    expect(await emails(cli)).toEqual(['kept@example.test'])

    expect((await cli('sandbox', 'snapshot', 'save', 'spare')).exitCode).toBe(0)
    const deleted = await cli('sandbox', 'snapshot', 'delete', 'spare')
    expect(deleted.exitCode, deleted.stderr).toBe(0)
    const again = await cli('sandbox', 'snapshot', 'delete', 'spare')
    expect(again.exitCode).toBe(1)
    expect(again.stderr).toContain('NOT_FOUND')
  })

  test('--all is the operator’s: another partner is refused with how to act as the operator', async () => {
    const other = cliFor(sandbox, {env: {PAYCTL_PROFILE: 'other'}})
    const refused = await other('sandbox', 'snapshot', 'save', 'everything', '--all')
    expect(refused.exitCode).toBe(4)
    expect(refused.stderr).toContain('INSUFFICIENT_PERMISSIONS')
    expect(refused.stderr).toContain('--profile local')
    const saved = await cli('sandbox', 'snapshot', 'save', 'everything', '--all', '--json')
    expect(saved.exitCode, saved.stderr).toBe(0)
    expect(saved.json()).toMatchObject({scope: 'all'})
  })

  test('a truncated, corrupt, newer or foreign file: exit 1, SNAPSHOT_INVALID naming what is wrong, nothing changed', async () => {
    const path = join(files.dir, 'good.snapshot')
    expect((await cli('sandbox', 'snapshot', 'save', 'good', '--file', path)).exitCode).toBe(0)
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
    const stored = (await cli('sandbox', 'snapshot', 'list', '--json')).json()
    for (const [name, bytes, reason] of cases) {
      const file = join(files.dir, `${name}.snapshot`)
      writeFileSync(file, bytes)
      const res = await cli('sandbox', 'snapshot', 'restore', '--file', file)
      expect(res.exitCode, `${name}: ${res.stderr}`).toBe(1)
      expect(res.stderr).toContain('SNAPSHOT_INVALID')
      expect(res.stderr).toContain(file)
      expect(res.stderr).toMatch(reason)
      // A sandbox started from it does not start (it fails before it serves: no process needed).
      const started = await cliFor(elsewhere.dir)('sandbox', 'start', '--port', '0', '--from-snapshot', file)
      expect(started.exitCode, `${name}: ${started.stderr}`).toBe(1)
      expect(started.stderr).toContain('SNAPSHOT_INVALID')
    }
    expect(await emails(cli)).toEqual(before)
    expect((await cli('sandbox', 'snapshot', 'list', '--json')).json()).toEqual(stored)
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
        const res = await cli(...args)
        expect(res.exitCode, `${args.join(' ')}: ${res.stderr}`).toBe(2)
        expect(res.stderr).toContain('INVALID_ARGUMENT')
      }
    }
    const missing = await cliFor(elsewhere.dir)(
      'sandbox',
      'start',
      '--port',
      '0',
      '--from-snapshot',
      'never-saved',
    )
    expect(missing.exitCode, missing.stderr).toBe(2)
    expect(missing.stderr).toContain('SNAPSHOT_NOT_FOUND')
    expect(missing.stderr).toContain('payctl sandbox snapshot list')
    const unknown = await cli('sandbox', 'snapshot', 'restore', 'never-saved')
    expect(unknown.exitCode).toBe(1)
    expect(unknown.stderr).toContain('NOT_FOUND')

    // Two restores at once run one after the other, each whole.
    const both = await Promise.all([
      cli('sandbox', 'snapshot', 'restore', 'base'),
      cli('sandbox', 'snapshot', 'restore', 'good'),
    ])
    for (const res of both) expect(res.exitCode, res.stderr).toBe(0)
    expect((await emails(cli)).length).toBeGreaterThan(0)
    expect(storedFiles(sandbox.configDir).sort()).toEqual(stored)
  })
})
