import {copyFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, test} from 'vitest'
import {FEATURES, openDatabase, SCHEMAS} from '../../src/sandbox/features.js'
import {Database, type Schema} from '../../src/sandbox/storage/database.js'
import {PartnerRows} from '../../src/sandbox/tenancy/partner-rows.js'
import {tempDir} from '../service/helpers.js'

const PREVIOUS_RELEASE = join(import.meta.dirname, '..', 'fixtures', 'data-files', 'previous-release.db')

describe('the features, each described once', () => {
  test('describe every table of the data file exactly once, each tied to its partner by columns it has', () => {
    const database = openDatabase(':memory:')
    try {
      const tables = database
        .prepare<{name: string}>(
          "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
        )
        .all()
        .map((t) => t.name)
      const described = SCHEMAS.flatMap((s) => (s.tables ?? []).map((t) => t.name)).sort()
      expect(described).toEqual(tables)
      const columns = (table: string) =>
        database
          .prepare<{name: string}>(`SELECT name FROM pragma_table_info('${table}')`)
          .all()
          .map((c) => c.name)
      for (const table of SCHEMAS.flatMap((s) => s.tables ?? [])) {
        const {tie} = table
        if ('partnerColumn' in tie) expect(columns(table.name), table.name).toContain(tie.partnerColumn)
        if ('parent' in tie) {
          expect(columns(table.name), table.name).toContain(tie.column)
          expect(columns(tie.parent), table.name).toContain(tie.key)
        }
      }
      // Every feature has a folder of its own, by the name it is described with.
      expect(new Set(FEATURES.map((f) => f.name)).size).toBe(FEATURES.length)
    } finally {
      database.close()
    }
  })

  test('find every row of a partner from the ties alone, and delete its records or all of it', () => {
    const files = tempDir()
    copyFileSync(PREVIOUS_RELEASE, files.file)
    const database = openDatabase(files.file)
    try {
      const rows = new PartnerRows(database, SCHEMAS)
      const count = (table: string) =>
        database.prepare<{n: number}>(`SELECT COUNT(*) AS n FROM ${table}`).get()!.n
      const before = rows.rowsOf('partner_previous')
      // The file holds one partner: its rows are every row of every table tied to a partner.
      for (const table of rows.tables)
        expect(before.get(table.name)?.length, table.name).toBe(count(table.name))
      expect(before.get('bnpl_installments')?.length).toBe(8)
      expect(before.get('webhook_attempts')?.length).toBeGreaterThan(0)
      expect(rows.rowsOf('partner_other').get('users')).toEqual([])

      rows.delete('partner_previous', 'records')
      const kept = [...rows.rowsOf('partner_previous')].filter(([, r]) => r.length > 0).map(([t]) => t)
      expect(kept.sort()).toEqual(['partners', 'webhook_endpoints', 'webhook_listen_sessions'])
      rows.delete('partner_previous', 'all')
      for (const table of rows.tables) expect(count(table.name), table.name).toBe(0)
      // What no partner owns stays.
      expect(count('meta')).toBeGreaterThan(0)
    } finally {
      database.close()
      files.cleanup()
    }
  })

  test('refuse tables tied in a circle, or to a table that holds no partner', () => {
    const database = new Database(':memory:')
    try {
      const schema = (tables: Schema['tables']): Schema[] => [{name: 'test', tables}]
      expect(
        () =>
          new PartnerRows(
            database,
            schema([
              {name: 'a', tie: {parent: 'b', key: 'id', column: 'b_id'}},
              {name: 'b', tie: {parent: 'a', key: 'id', column: 'a_id'}},
            ]),
          ),
      ).toThrow(/circle/)
      expect(
        () =>
          new PartnerRows(
            database,
            schema([
              {name: 'a', tie: {parent: 'c', key: 'id', column: 'c_id'}},
              {name: 'c', tie: {shared: 'everyone'}},
            ]),
          ),
      ).toThrow(/holds no partner's rows/)
    } finally {
      database.close()
    }
  })
})
