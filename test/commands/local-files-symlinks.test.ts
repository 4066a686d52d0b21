import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {payctl, readProfileFile, tempConfigDir} from '../helpers/cli.js'
import {type LocalSandbox, startLocalSandbox} from '../helpers/local-sandbox.js'

const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8)

describe('nothing in the config dir is written through a symlink planted there', () => {
  let sandbox: LocalSandbox
  const outsides: string[] = []
  beforeAll(async () => {
    sandbox = await startLocalSandbox()
  })
  afterAll(async () => {
    await sandbox.stop()
    for (const dir of outsides) rmSync(dir, {recursive: true, force: true})
  })
  /** A folder outside the config dir, for what a planted link points at. */
  const outside = () => {
    const dir = mkdtempSync(join(tmpdir(), 'payctl-outside-'))
    outsides.push(dir)
    return dir
  }
  const login = (configDir: string, name = 'local') =>
    payctl(
      [
        'auth',
        'login',
        '--profile',
        name,
        '--env',
        'local',
        '--base-url',
        sandbox.url,
        '--secret-key',
        sandbox.credentials.secretKey,
      ],
      {configDir, timeoutMs: 10_000},
    )
  const isLink = (path: string) => lstatSync(path).isSymbolicLink()
  const profileNames = (configDir: string) => Object.keys(readProfileFile(configDir).profiles)

  it('profiles.json: a link to nothing is replaced by the file, never creating what it names', async () => {
    const temp = tempConfigDir()
    const target = join(outside(), 'created.json')
    symlinkSync(target, join(temp.dir, 'profiles.json'))
    try {
      expect((await payctl(['profiles', 'list', '--json'], {configDir: temp.dir})).json()).toEqual([])
      const r = await login(temp.dir)
      expect(r.exitCode, r.stderr).toBe(0)
      expect(existsSync(target)).toBe(false)
      expect(isLink(join(temp.dir, 'profiles.json'))).toBe(false)
      expect(modeOf(join(temp.dir, 'profiles.json'))).toBe('600')
      expect(profileNames(temp.dir)).toEqual(['local'])
    } finally {
      temp.cleanup()
    }
  })

  it('profiles.json: a link to a profile file of yours keeps its profiles, and is replaced, its target unchanged', async () => {
    const temp = tempConfigDir()
    const target = join(outside(), 'profiles.json')
    const kept = `${JSON.stringify({currentProfile: 'old', profiles: {old: {environment: 'local', baseUrl: sandbox.url}}})}\n`
    writeFileSync(target, kept, {mode: 0o600})
    symlinkSync(target, join(temp.dir, 'profiles.json'))
    try {
      const list = await payctl(['profiles', 'list', '--json'], {configDir: temp.dir})
      expect(list.json<{name: string}[]>().map((p) => p.name)).toEqual(['old'])
      const r = await login(temp.dir, 'new')
      expect(r.exitCode, r.stderr).toBe(0)
      expect(readFileSync(target, 'utf8')).toBe(kept)
      expect(isLink(join(temp.dir, 'profiles.json'))).toBe(false)
      expect(modeOf(join(temp.dir, 'profiles.json'))).toBe('600')
      expect(profileNames(temp.dir)).toEqual(['old', 'new'])
    } finally {
      temp.cleanup()
    }
  })

  it('profiles.json: a link to a file others can read is refused, naming the link, and the file is left alone', async () => {
    const temp = tempConfigDir()
    const target = join(outside(), 'notes.txt')
    writeFileSync(target, 'keep me\n', {mode: 0o644})
    chmodSync(target, 0o644)
    symlinkSync(target, join(temp.dir, 'profiles.json'))
    try {
      for (const r of [await payctl(['profiles', 'list'], {configDir: temp.dir}), await login(temp.dir)]) {
        expect(r.exitCode).toBe(1)
        expect(r.stderr).toContain(`the profile file ${join(temp.dir, 'profiles.json')} is a symbolic link`)
        expect(r.stderr).toContain(`rm ${join(temp.dir, 'profiles.json')}`)
        expect(r.stdout).not.toContain('✓')
      }
      expect(readFileSync(target, 'utf8')).toBe('keep me\n')
      expect(modeOf(target)).toBe('644')
    } finally {
      temp.cleanup()
    }
  })

  it('profiles.json.lock: a planted link is taken for no lock, not for one held by another process', async () => {
    const temp = tempConfigDir()
    const target = join(outside(), 'lock')
    mkdirSync(target)
    symlinkSync(target, join(temp.dir, 'profiles.json.lock'))
    try {
      const r = await login(temp.dir)
      expect(r.exitCode, r.stderr).toBe(0)
      expect(readdirSync(target)).toEqual([])
      expect(profileNames(temp.dir)).toEqual(['local'])
    } finally {
      temp.cleanup()
    }
  })

  it('audit.log: a planted link is replaced by the log, with a warning; its target and the command’s answer are unchanged', async () => {
    const temp = tempConfigDir()
    const target = join(outside(), 'victim.txt')
    writeFileSync(target, 'keep me\n', {mode: 0o600})
    symlinkSync(target, join(temp.dir, 'audit.log'))
    const create = (email: string) =>
      payctl(['users', 'create', '--email', email, '--first-name', 'A', '--last-name', 'Udit'], {
        configDir: temp.dir,
      })
    try {
      expect((await login(temp.dir)).exitCode).toBe(0)
      const r = await create('a1@example.test')
      expect(r.exitCode, r.stderr).toBe(0)
      expect(r.stdout).toMatch(/^usr_\w+\n$/)
      expect(r.stderr).toContain('audit.log was a symbolic link')
      expect(readFileSync(target, 'utf8')).toBe('keep me\n')
      const log = join(temp.dir, 'audit.log')
      expect(isLink(log)).toBe(false)
      expect(modeOf(log)).toBe('600')
      const again = await create('a2@example.test')
      expect(again.exitCode, again.stderr).toBe(0)
      expect(again.stderr).toBe('')
      const lines = readFileSync(log, 'utf8').trim().split('\n')
      expect(lines.map((l) => JSON.parse(l).command)).toEqual([
        expect.stringContaining('payctl users create --email a1@example.test'),
        expect.stringContaining('payctl users create --email a2@example.test'),
      ])
    } finally {
      temp.cleanup()
    }
  })

  it('seed: a link planted at the journal folder or a --journal file is replaced, its target unchanged', async () => {
    const temp = tempConfigDir()
    const folder = outside()
    symlinkSync(folder, join(temp.dir, 'seed'))
    const fixture = join(temp.dir, 'one.yaml')
    writeFileSync(
      fixture,
      'users:\n  ada:\n    email: ada@example.test\n    first_name: Ada\n    last_name: L\n',
    )
    const victim = join(outside(), 'victim.txt')
    writeFileSync(victim, 'keep me\n', {mode: 0o600})
    const journal = join(temp.dir, 'journal.ndjson')
    symlinkSync(victim, journal)
    try {
      expect((await login(temp.dir)).exitCode).toBe(0)
      const r = await payctl(['seed', fixture, '--json'], {configDir: temp.dir, timeoutMs: 30_000})
      expect(r.exitCode, r.stderr).toBe(0)
      expect(readdirSync(folder)).toEqual([])
      expect(isLink(join(temp.dir, 'seed'))).toBe(false)
      expect(readdirSync(join(temp.dir, 'seed'))).toHaveLength(1)
      const ids = r.json()
      const viaJournal = await payctl(['seed', fixture, '--journal', journal, '--json'], {
        configDir: temp.dir,
        timeoutMs: 30_000,
      })
      expect(viaJournal.exitCode, viaJournal.stderr).toBe(0)
      // Replayed with the same idempotency keys: the same record, not a second one.
      expect(viaJournal.json()).toEqual(ids)
      expect(readFileSync(victim, 'utf8')).toBe('keep me\n')
      expect(isLink(journal)).toBe(false)
      expect(modeOf(journal)).toBe('600')
      expect(readFileSync(journal, 'utf8')).toContain('"key":"users.ada"')
    } finally {
      temp.cleanup()
    }
  })

  it('sandbox.db: a link at the default data file is refused with what to do, its target unchanged', async () => {
    const temp = tempConfigDir()
    const target = join(outside(), 'victim.db')
    writeFileSync(target, 'keep me\n', {mode: 0o600})
    symlinkSync(target, join(temp.dir, 'sandbox.db'))
    try {
      // Refused before a background copy is started: the same run in this process.
      const r = await payctl(['sandbox', 'start', '--detach', '--port', '0', '--json'], {
        configDir: temp.dir,
        timeoutMs: 30_000,
      })
      expect(r.exitCode).toBe(1)
      expect(r.json<{error: {code: string; message: string}}>().error).toMatchObject({
        code: 'CONFIG_FILE_LINK',
        message: expect.stringContaining(`${join(temp.dir, 'sandbox.db')} is a symbolic link`),
      })
      expect(readFileSync(target, 'utf8')).toBe('keep me\n')
      expect(existsSync(`${target}-wal`)).toBe(false)
    } finally {
      await payctl(['sandbox', 'stop'], {configDir: temp.dir})
      temp.cleanup()
    }
  })
})
