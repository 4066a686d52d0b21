import {describe, expect, test} from 'vitest'
import {openDatabase, SCHEMAS} from '../../src/sandbox/features.js'

/**
 * A restore checks every value a snapshot file brings in by its column's rule (docs/sandbox.md,
 * "What a snapshot file may hold"): a column added without one would let any value of it in.
 */
describe('the rules of the data file’s columns', () => {
  const database = openDatabase(':memory:')
  const tables = SCHEMAS.flatMap((s) => s.tables ?? []).filter((t) => !('shared' in t.tie))
  const columnsOf = (table: string) =>
    (database.db.prepare('SELECT name FROM pragma_table_info(?)').all(table) as {name: string}[]).map(
      (c) => c.name,
    )

  test('every column of a partner’s table but its partner column says what it holds', () => {
    expect(tables.length).toBeGreaterThan(20)
    for (const table of tables) {
      const own = 'partnerColumn' in table.tie ? [table.tie.partnerColumn] : []
      const expected = columnsOf(table.name).filter((c) => !own.includes(c))
      expect(Object.keys(table.columns ?? {}).sort(), table.name).toEqual(expected.sort())
    }
  })

  test('every record a column names is in a partner’s table, under a column it has', () => {
    for (const table of tables) {
      for (const [name, rule] of Object.entries(table.columns ?? {})) {
        if (rule.kind !== 'ref') continue
        const target = tables.find((t) => t.name === rule.table)
        expect(target, `${table.name}.${name} names ${rule.table}`).toBeDefined()
        expect(columnsOf(rule.table), `${table.name}.${name}`).toContain(rule.key)
      }
    }
  })
})
