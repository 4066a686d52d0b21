import {mkdirSync, readdirSync, truncateSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {DatabaseSync} from 'node:sqlite'
import {afterAll, beforeAll, describe, expect, test} from 'vitest'
import type {RunningSandbox} from '../../src/sandbox/index.js'
import {MEMORY_RESTORE_ROWS} from '../../src/sandbox/snapshots/store.js'
import {type SandboxProcess, startSandboxProcess} from '../helpers/sandbox.js'
import {type Receiver, startReceiver} from '../helpers/webhooks-receiver.js'
import {codeOf, createPartner, query, start, TestSandbox, tempDir} from '../service/helpers.js'
import {download, emptyTables, partsOf, seedEveryTable, tampered, upload} from '../service/snapshot-files.js'

/**
 * A snapshot file is somebody's upload. Partner "mallory", who is not the operator of a shared
 * sandbox, saves a snapshot, downloads it, changes it as anyone can (the header's checksum made to
 * match), sends it back and restores it: whatever the file holds beyond the sandbox's own schema and
 * its own partner's rows is refused whole, and nothing of any other partner changes.
 */

let sandbox: SandboxProcess
let operator: TestSandbox
let victim: TestSandbox
let mallory: TestSandbox
let receiver: Receiver
let good: Buffer
const files = tempDir()

/**
 * Another sandbox process, on a data file of its own, with a snapshot quota of 1 MiB: started once,
 * for the test that restores mallory's file there and the one that fills a partner's quota.
 */
let another: Promise<SandboxProcess> | undefined
const anotherFiles = tempDir()
const anotherSandbox = () => {
  another ??= startSandboxProcess(['--settle-after', '30d', '--snapshot-quota', '1MiB'], {
    data: anotherFiles.file,
  })
  return another
}

/** A sandbox process as the in-process helpers talk to one. */
const client = (p: SandboxProcess): TestSandbox =>
  new TestSandbox({
    url: p.url,
    port: 0,
    host: '127.0.0.1',
    credentials: p.credentials,
    close: p.stop,
  } as RunningSandbox)

/**
 * Every row of the data file that is not mallory's, table by table, in order: what a restore of
 * mallory's must leave as it was. The webhook fan-out's place in the event log moves with mallory's
 * own events, and is left out.
 */
function othersRows(): string {
  const db = new DatabaseSync(files.file, {readOnly: true})
  try {
    const tables = db
      .prepare(
        "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
      )
      .all() as {name: string}[]
    const children: Record<string, string> = {
      event_subjects: 'event_seq IN (SELECT seq FROM events WHERE partner_id = ?)',
      bnpl_installments: 'payment_id IN (SELECT id FROM bnpl_payments WHERE partner_id = ?)',
      webhook_attempts: 'delivery_id IN (SELECT id FROM webhook_deliveries WHERE partner_id = ?)',
    }
    const dump: Record<string, unknown[]> = {}
    for (const {name} of tables) {
      const columns = (db.prepare(`SELECT name FROM pragma_table_info(?)`).all(name) as {name: string}[]).map(
        (c) => c.name,
      )
      const mine = columns.includes('partner_id') ? 'partner_id = ?' : children[name]
      const where =
        name === 'meta'
          ? " WHERE key <> 'webhooks_fanout_seq'"
          : mine === undefined
            ? ''
            : ` WHERE NOT (${mine})`
      const params = mine === undefined || name === 'meta' ? [] : [mallory.creds.partnerId]
      const rows = db.prepare(`SELECT * FROM ${name}${where} ORDER BY 1, 2`).all(...params)
      // A live listen session's heartbeat, which its listener moves on however long a restore takes.
      if (name === 'webhook_listen_sessions') for (const row of rows) delete row.last_seen_at
      dump[name] = rows
    }
    return JSON.stringify(dump)
  } finally {
    db.close()
  }
}

/** `count` more users of the snapshot's partner, each as the API would write it. */
const moreUsers = (count: number, partnerId: string) => (db: DatabaseSync) =>
  db
    .prepare(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${count})
       INSERT INTO users (id, partner_id, email, first_name, last_name, created_at)
       SELECT printf('usr_f%023x', i), ?, 'many' || i || '@example.test', 'Many', 'Users', '2026-01-01T00:00:00.000Z' FROM n`,
    )
    .run(partnerId)

/** Send `bytes` as mallory's snapshot `name` and restore it: the restore's answer. */
async function restore(name: string, bytes: Buffer) {
  const sent = await upload(mallory, name, bytes)
  expect(sent.status, sent.text).toBe(200)
  return mallory.post(`/_sandbox/snapshots/${name}/restore`)
}

/** Restoring `bytes` is refused as SNAPSHOT_INVALID naming `reason`, and no other partner's row changed. */
async function refused(name: string, bytes: Buffer, reason: RegExp): Promise<void> {
  const before = othersRows()
  const res = await restore(name, bytes)
  expect(res.status, `${name}: ${res.text}`).toBe(400)
  expect(codeOf(res), name).toBe('SNAPSHOT_INVALID')
  expect(res.body.message, name).toMatch(reason)
  expect(othersRows(), `${name} changed another partner's rows`).toEqual(before)
  expect((await operator.get('/_sandbox/health')).status).toBe(200)
}

beforeAll(async () => {
  receiver = await startReceiver()
  sandbox = await startSandboxProcess(['--settle-after', '30d'], {data: files.file})
  operator = client(sandbox)
  victim = await createPartner(operator, 'victim')
  mallory = await createPartner(operator, 'mallory')
  await seedEveryTable(victim, receiver.url)
  await seedEveryTable(mallory, receiver.url)
  const saved = await mallory.post('/_sandbox/snapshots', {name: 'mine'})
  expect(saved.status, saved.text).toBe(201)
  good = await download(mallory, 'mine')
}, 120_000)

afterAll(async () => {
  await sandbox?.stop()
  await (await another?.catch(() => undefined))?.stop()
  await receiver?.close()
  files.cleanup()
  anotherFiles.cleanup()
})

/** The first row of a table with row numbers, as an UPDATE names it. */
const first = (table: string) => `seq = (SELECT min(seq) FROM ${table})`

/** A table's primary key columns, as SQL: what names one of its rows. */
function keyOf(db: DatabaseSync, table: string): string {
  const pk = db.prepare('SELECT name FROM pragma_table_info(?) WHERE pk > 0 ORDER BY pk').all(table) as {
    name: string
  }[]
  return pk.map((c) => c.name).join(', ')
}

/** An id of the victim's, read from the data file as an outside observer would. */
const victims = (table: string, column = 'id'): string => {
  const [row] = query(
    files.file,
    `SELECT ${column} AS v FROM ${table} WHERE partner_id = ? LIMIT 1`,
    victim.creds.partnerId,
  )
  expect(row, `the victim has a ${table} row`).toBeDefined()
  return String(row!.v)
}

describe('a snapshot file a partner changed and sent back', () => {
  test('holds a row in every table of a partner; untouched, it restores', async () => {
    const rows = join(files.dir, 'rows.db')
    writeFileSync(rows, partsOf(good).rows)
    expect(emptyTables(rows).filter((t) => !['meta', 'revoked_tokens'].includes(t))).toEqual([])
    const res = await restore('untouched', good)
    expect(res.status, res.text).toBe(200)
  })

  test('with a trigger, a view, a virtual table, or a table, column or index of its own: refused whole, naming it', async () => {
    const dir = files.dir
    const steal = `INSERT INTO users (id, partner_id, email, first_name, last_name, created_at)
      VALUES ('usr_' || lower(hex(randomblob(12))), 'mallory', NEW.api_key || ' ' || NEW.api_secret, 'a', 'b', '2026-01-01T00:00:00.000Z')`
    const cases: [string, (db: DatabaseSync) => void, RegExp, boolean?][] = [
      [
        'trigger',
        (db) => db.exec(`CREATE TRIGGER steal AFTER INSERT ON partners BEGIN ${steal}; END`),
        /a trigger steal on partners/,
      ],
      // The seal the file had: changed rows keep no trust that it gave.
      [
        'sealed-trigger',
        (db) => db.exec(`CREATE TRIGGER keys AFTER INSERT ON meta BEGIN DELETE FROM users; END`),
        /a trigger keys on meta/,
        true,
      ],
      [
        'recursive-view',
        (db) =>
          db.exec(`DROP TABLE virtual_cards;
            CREATE VIEW virtual_cards AS WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) SELECT x AS id FROM n`),
        /a view virtual_cards/,
      ],
      [
        'virtual-table',
        (db) => db.exec('CREATE VIRTUAL TABLE notes USING fts5(body)'),
        /a virtual table notes/,
      ],
      ['table', (db) => db.exec('CREATE TABLE loot (secret TEXT)'), /a table loot/],
      ['column', (db) => db.exec('ALTER TABLE users ADD COLUMN loot TEXT'), /a column users\.loot/],
      ['index', (db) => db.exec('CREATE INDEX loot ON users (email)'), /an index loot on users/],
      [
        'index-redefined',
        (db) => db.exec('DROP INDEX users_by_email; CREATE INDEX users_by_email ON users (last_name)'),
        /an index users_by_email defined otherwise/,
      ],
      ['statistics', (db) => db.exec('ANALYZE'), /a table sqlite_stat1/],
    ]
    for (const [name, change, reason, keepSeal] of cases)
      await refused(name, tampered(good, dir, change, keepSeal), reason)
  })

  test("with a row of another partner in any table, or under another partner's parent row: refused, naming the table", async () => {
    const tables = (
      query(
        files.file,
        "SELECT m.name FROM sqlite_schema m JOIN pragma_table_info(m.name) c WHERE m.type = 'table' AND c.name = 'partner_id' ORDER BY m.name",
      ) as {name: string}[]
    ).map((t) => t.name)
    expect(tables.length).toBeGreaterThan(20)
    const other = victim.creds.partnerId
    for (const table of tables) {
      const change = (db: DatabaseSync) => {
        const key = keyOf(db, table)
        const touched = db
          .prepare(
            `UPDATE ${table} SET partner_id = ? WHERE (${key}) = (SELECT ${key} FROM ${table} LIMIT 1)`,
          )
          .run(other)
        expect(touched.changes, table).toBe(1)
      }
      await refused(
        `foreign-${table}`,
        tampered(good, files.dir, change),
        new RegExp(`its ${table} row.*(partner_id is not the snapshot's partner|names no)`),
      )
    }
    // A row tied to its partner through a parent: put under one of the victim's.
    const children: [string, string, string][] = [
      ['event_subjects', 'event_seq', victims('events', 'seq')],
      ['bnpl_installments', 'payment_id', victims('bnpl_payments')],
      ['webhook_attempts', 'delivery_id', victims('webhook_deliveries')],
    ]
    for (const [table, column, parent] of children) {
      const change = (db: DatabaseSync) => {
        const key = keyOf(db, table)
        db.prepare(
          `UPDATE ${table} SET ${column} = ? WHERE (${key}) = (SELECT ${key} FROM ${table} LIMIT 1)`,
        ).run(parent)
      }
      await refused(
        `adopted-${table}`,
        tampered(good, files.dir, change),
        new RegExp(`its ${table} row: it belongs to no`),
      )
    }
  }, 120_000)

  test("naming another partner's records: its wallet's volume, its registration, its user's settings, its session", async () => {
    const cases: [string, string, RegExp][] = [
      [
        'volume',
        `UPDATE wallet_volumes SET wallet_id = '${victims('wallets')}' WHERE wallet_id = (SELECT min(wallet_id) FROM wallet_volumes)`,
        /its wallet_volumes row.*wallet_id names no wallets row/,
      ],
      [
        'registration',
        `UPDATE webhook_deliveries SET endpoint_id = '${victims('webhook_endpoints')}' WHERE endpoint_id IS NOT NULL`,
        /endpoint_id names no webhook_endpoints row/,
      ],
      [
        'settings',
        `UPDATE roundup_settings SET user_id = '${victims('users')}' WHERE user_id = (SELECT min(user_id) FROM roundup_settings)`,
        /user_id names no users row/,
      ],
      [
        'transaction',
        `UPDATE transactions SET wallet_id = '${victims('wallets')}' WHERE ${first('transactions')}`,
        /wallet_id names no wallets row/,
      ],
    ]
    for (const [name, sql, reason] of cases)
      await refused(
        name,
        tampered(good, files.dir, (db) => db.exec(sql)),
        reason,
      )
    // A session of the file's own, under the id of the victim's live one: the file's sessions give
    // way to the running ones at a restore, so its deliveries would be pushed to the victim's listener.
    const live = victims('webhook_listen_sessions')
    const hijack = (db: DatabaseSync) => {
      const own = db.prepare('SELECT id FROM webhook_listen_sessions LIMIT 1').get() as {id: string}
      db.prepare('UPDATE webhook_listen_sessions SET id = ? WHERE id = ?').run(live, own.id)
      const moved = db
        .prepare('UPDATE webhook_deliveries SET session_id = ? WHERE session_id = ?')
        .run(live, own.id)
      expect(moved.changes).toBeGreaterThan(0)
    }
    await refused(
      'session',
      tampered(good, files.dir, hijack),
      /another partner's webhook_listen_sessions row/,
    )
  })

  test('with values the API never writes: money from nothing, an amount that is no integer, an endless run, a metadata address, a row number past reading', async () => {
    const cases: [string, string, RegExp][] = [
      [
        'money',
        `UPDATE wallets SET available = '100000000000' WHERE ${first('wallets')}`,
        /balances are not what its ledger entries add up to/,
      ],
      [
        'ledger',
        `UPDATE ledger_entries SET amount = CAST(amount AS INTEGER) + 1 WHERE ${first('ledger_entries')}`,
        /ledger entr/,
      ],
      [
        'amount',
        `UPDATE transactions SET amount = '12.5' WHERE ${first('transactions')}`,
        /its amount is not an integer amount/,
      ],
      [
        'run',
        `UPDATE event_subjects SET last_seq = 9000000000000 WHERE (subject, event_seq) = (SELECT subject, event_seq FROM event_subjects LIMIT 1)`,
        /last_seq/,
      ],
      [
        'metadata-address',
        "UPDATE webhook_endpoints SET url = 'http://169.254.169.254/latest/meta-data'",
        /metadata/,
      ],
      [
        'row-number',
        `UPDATE users SET seq = 9223372036854775807 WHERE seq = (SELECT min(seq) FROM users)`,
        /its seq is not/,
      ],
      ['clock', `UPDATE partner_clocks SET offset_ms = 9007199254740991`, /offset_ms/],
      [
        'time',
        `UPDATE users SET created_at = 'yesterday' WHERE ${first('users')}`,
        /created_at is not an ISO 8601 time/,
      ],
      ['status', `UPDATE wallets SET status = 'vip' WHERE ${first('wallets')}`, /status is not one of/],
    ]
    for (const [name, sql, reason] of cases)
      await refused(
        name,
        tampered(good, files.dir, (db) => db.exec(sql)),
        reason,
      )
  })

  test('untouched, it restores in another sandbox too, through every check, with every record', async () => {
    const there = client(await anotherSandbox())
    const sent = await upload(there, 'from-elsewhere', good)
    expect(sent.status, sent.text).toBe(200)
    const restored = await there.post('/_sandbox/snapshots/from-elsewhere/restore')
    expect(restored.status, restored.text).toBe(200)
    const users = (p: TestSandbox) =>
      p.get('/v1/users?limit=100').then((r) => r.body.data.users.map((u: {id: string}) => u.id))
    expect(await users(there)).toEqual(await users(mallory))
  })
})

describe('while a file is checked', () => {
  test('the sandbox goes on answering: requests sent after a large restore began are answered before it ends', async () => {
    // 40,000 more users of mallory's own: a file that restores, slice by slice.
    const many = tampered(good, files.dir, moreUsers(40_000, mallory.creds.partnerId))
    expect((await upload(mallory, 'many', many)).status).toBe(200)
    let restored = false
    const restoring = mallory.post('/_sandbox/snapshots/many/restore').then((res) => {
      restored = true
      return res
    })
    let answeredBefore = 0
    while (!restored) {
      const health = await operator.get('/_sandbox/health')
      expect(health.status).toBe(200)
      if (!restored) answeredBefore++
    }
    const res = await restoring
    expect(res.status, res.text).toBe(200)
    expect(res.body.records).toBeGreaterThan(40_000)
    expect(answeredBefore).toBeGreaterThan(0)
  })
})

describe('a sandbox in memory', () => {
  test(`restores at most ${MEMORY_RESTORE_ROWS} rows, copied in one transaction, and says to use a data file`, async () => {
    const snapshotDir = join(files.dir, 'in-memory')
    const t = await start({snapshotDir})
    try {
      const big = tampered(good, files.dir, moreUsers(MEMORY_RESTORE_ROWS, mallory.creds.partnerId))
      // Put where an upload would leave it (uploads of files this large: the test above).
      mkdirSync(join(snapshotDir, t.creds.partnerId), {recursive: true, mode: 0o700})
      writeFileSync(join(snapshotDir, t.creds.partnerId, 'big.snapshot'), big, {mode: 0o600})
      const res = await t.post('/_sandbox/snapshots/big/restore')
      expect(res.status, res.text).toBe(400)
      expect(codeOf(res)).toBe('SNAPSHOT_INVALID')
      expect(res.body.message).toMatch(/more than a sandbox in memory restores.*--data FILE/)
      expect((await t.get('/v1/users')).body.data.users).toEqual([])
    } finally {
      await t.sb.close()
    }
  })
})

describe('snapshot quotas', () => {
  test('by default a partner keeps 512 MiB: past it (a 600 MB file there already) an upload is refused at once', async () => {
    const dir = tempDir()
    const t = await start({data: dir.file})
    try {
      const folder = join(`${dir.file}.snapshots`, t.creds.partnerId)
      mkdirSync(folder, {recursive: true})
      // Sparse: it takes no disk, and counts for its size.
      const planted = join(folder, 'huge.snapshot')
      writeFileSync(planted, '')
      truncateSync(planted, 600 * 1024 * 1024)
      const sent = await upload(t, 'more', Buffer.alloc(1024, 1))
      expect(sent.status, sent.text).toBe(422)
      expect(codeOf(sent)).toBe('SNAPSHOT_QUOTA_EXCEEDED')
      expect(sent.body.details).toMatchObject({quota: {files: 100, bytes: 512 * 1024 * 1024}})
      expect(readdirSync(folder)).toEqual(['huge.snapshot'])
    } finally {
      await t.sb.close()
      dir.cleanup()
    }
  })

  test('an upload or a save past the partner’s quota is refused, and nothing of it is kept', async () => {
    // A partner of its own there, whose folder holds nothing yet.
    const p = await createPartner(client(await anotherSandbox()), 'saver')
    const first = await p.post('/_sandbox/snapshots', {name: 'fits'})
    expect(first.status, first.text).toBe(201)
    const big = Buffer.alloc(2 * 1024 * 1024, 7)
    const sent = await upload(p, 'big', big)
    expect(sent.status, sent.text).toBe(422)
    expect(codeOf(sent)).toBe('SNAPSHOT_QUOTA_EXCEEDED')
    expect(sent.body.details.quota).toEqual({files: 100, bytes: 1024 * 1024})
    let saves = 0
    let res = first
    while (res.status === 201 && saves < 10) {
      res = await p.post('/_sandbox/snapshots', {name: `more-${saves++}`})
    }
    expect(res.status, res.text).toBe(422)
    expect(codeOf(res)).toBe('SNAPSHOT_QUOTA_EXCEEDED')
    const kept = (await p.get('/_sandbox/snapshots')).body.data.map((s: {name: string}) => s.name)
    expect(kept).not.toContain('big')
    expect(kept).not.toContain(`more-${saves - 1}`)
    expect((await p.get('/_sandbox/health')).status).toBe(200)
  })
})
