import {copyFileSync} from 'node:fs'
import {join} from 'node:path'
import {DatabaseSync} from 'node:sqlite'
import {afterAll, describe, expect, it} from 'vitest'
import {cliFor, tempConfigDir} from '../helpers/cli.js'
import {startLocalSandbox} from '../helpers/local-sandbox.js'

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

/**
 * `sandbox start` refusing a setting or a data file says so before it listens: what it prints and
 * exits with is the same run in this process (a start that succeeded would serve until a signal, and
 * needs a process of its own: test/processes/sandbox-detach.test.ts).
 */
describe('sandbox start refuses what it cannot serve', () => {
  const temp = tempConfigDir()
  const cli = cliFor(temp.dir, {timeoutMs: 30_000})
  afterAll(() => temp.cleanup())

  it('refuses a bad setting with a usage error', async () => {
    const r = await cli('sandbox', 'start', '--port', '0', '--secret-key', 'live_nope', '--data', ':memory:')
    expect(r.exitCode).toBe(2)
    expect(r.stderr).toContain('SANDBOX_START_FAILED')
  })

  it('refuses a damaged data file with a clear error, changing nothing in it', async () => {
    // A data file as a sandbox leaves it.
    const data = join(temp.dir, 'damaged.db')
    const made = await startLocalSandbox({data}, {configDir: temp.dir})
    await made.stop()
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
          const r = await cliFor(own.dir, {timeoutMs: 30_000})(
            'sandbox',
            'start',
            '--port',
            '0',
            '--data',
            file,
          )
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
})
