import {copyFileSync} from 'node:fs'
import {join} from 'node:path'
import {DatabaseSync} from 'node:sqlite'
import {afterEach, describe, expect, it} from 'vitest'
import {runCli, tempConfigDir} from '../helpers/cli.js'

/** Every row of every table of a data file, to see that nothing in it changed. */
function dump(file: string): Record<string, unknown[]> {
  const db = new DatabaseSync(file, {readOnly: true})
  try {
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as {name: string}[]
    return Object.fromEntries(tables.map(({name}) => [name, db.prepare(`SELECT * FROM "${name}"`).all()]))
  } finally {
    db.close()
  }
}

describe('sandbox lifecycle', () => {
  const temp = tempConfigDir()
  const cli = (...args: string[]) => runCli(args, {configDir: temp.dir, timeoutMs: 30_000})
  afterEach(async () => {
    await cli('sandbox', 'stop')
  })

  it('starts in the background, reports its status, serves the CLI, and stops', async () => {
    const started = await cli(
      'sandbox',
      'start',
      '--detach',
      '--port',
      '0',
      '--data',
      ':memory:',
      '--rate-limit',
      'off',
      '--json',
    )
    expect(started.exitCode, started.stderr).toBe(0)
    const {url, pid} = started.json<{url: string; pid: number}>()
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)

    const status = await cli('sandbox', 'status', '--json')
    expect(status.exitCode, status.stderr).toBe(0)
    expect(status.json()).toMatchObject({status: 'ok', url, pid, rateLimit: 'off', responseShape: 'envelope'})
    expect(status.json<{inspector: string}>().inspector).toBe(`${url}/_sandbox/ui`)
    const card = await cli('sandbox', 'status')
    expect(card.stdout).toMatch(new RegExp(`inspector\\s+${url}/_sandbox/ui`))

    // The local profile it wrote works at once.
    const user = await cli(
      'users',
      'create',
      '--email',
      'bg@example.test',
      '--first-name',
      'B',
      '--last-name',
      'G',
    )
    expect(user.exitCode, user.stderr).toBe(0)
    expect(user.stdout.trim()).toMatch(/^usr_/)

    const again = await cli('sandbox', 'start', '--detach', '--port', '0')
    expect(again.exitCode).toBe(2)
    expect(again.stderr).toContain('SANDBOX_RUNNING')

    const stopped = await cli('sandbox', 'stop', '--json')
    expect(stopped.json()).toEqual({stopped: true, pid})
    const after = await cli('sandbox', 'status')
    expect(after.exitCode).toBe(1)
    expect(after.stderr).toContain('Try: payctl sandbox start')
  })

  it('prints an OpenAPI 3.1 document with every path of the contract', async () => {
    const r = await cli('sandbox', 'openapi')
    expect(r.exitCode).toBe(0)
    const doc = JSON.parse(r.stdout)
    expect(doc.openapi).toMatch(/^3\.1/)
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/v1/wallets', '/v1/wallets/{id}', '/v1/transactions', '/v1/auth/token']),
    )
  })

  it('refuses a bad setting with a usage error', async () => {
    const r = await cli('sandbox', 'start', '--port', '0', '--secret-key', 'live_nope', '--data', ':memory:')
    expect(r.exitCode).toBe(2)
    expect(r.stderr).toContain('SANDBOX_START_FAILED')
  })

  it('refuses a damaged data file with a clear error, changing nothing in it', async () => {
    const data = join(temp.dir, 'damaged.db')
    const first = await cli('sandbox', 'start', '--detach', '--port', '0', '--data', data)
    expect(first.exitCode, first.stderr).toBe(0)
    await cli('sandbox', 'stop')
    const meta = 'UPDATE meta SET value = ?2 WHERE key = ?1'
    const clock = `INSERT INTO partner_clocks (partner_id, offset_ms) SELECT partner_id, ?2 FROM partners WHERE ?1 != ''`
    const damage: [string, string, string][] = [
      ['clock of partner_', 'soon', clock],
      ['jwt_signing_key', 'not a key', meta],
      ['schema_version', 'three', meta],
      ['webhooks_fanout_seq', '-1', meta],
    ]
    // Each damage in a config dir and data file of its own, all at once.
    await Promise.all(
      damage.map(async ([key, value, sql]) => {
        const own = tempConfigDir()
        try {
          const file = join(own.dir, 'damaged.db')
          copyFileSync(data, file)
          const db = new DatabaseSync(file)
          db.prepare(sql).run(key, value)
          db.close()
          const contents = dump(file)
          const r = await runCli(['sandbox', 'start', '--port', '0', '--data', file], {
            configDir: own.dir,
            timeoutMs: 30_000,
          })
          expect(r.exitCode, key).toBe(2)
          expect(r.stderr).toContain('DATA_FILE_DAMAGED')
          expect(r.stderr).toMatch(new RegExp(`its ${key}\\S* is "${value}"`))
          expect(dump(file), key).toEqual(contents)
        } finally {
          own.cleanup()
        }
      }),
    )
  })

  it('stops a sandbox it started that does not answer', async () => {
    const started = await cli('sandbox', 'start', '--detach', '--port', '0', '--data', ':memory:', '--json')
    expect(started.exitCode, started.stderr).toBe(0)
    const {pid} = started.json<{pid: number}>()
    // Suspended, it answers nothing: not its health check, not a request.
    process.kill(pid, 'SIGSTOP')
    const stopped = await cli('sandbox', 'stop')
    expect(stopped.exitCode, stopped.stderr).toBe(0)
    expect(stopped.stderr).toContain(`(pid ${pid}) does not answer; stopping it anyway`)
    expect(stopped.stdout).toContain(`Stopped the sandbox`)
    expect(() => process.kill(pid, 0)).toThrow()
  })
})
