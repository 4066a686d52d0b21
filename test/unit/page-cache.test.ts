import {describe, expect, test} from 'vitest'
import {openDatabase} from '../../src/sandbox/features.js'
import {withPageCache} from '../../src/sandbox/storage/page-cache.js'

describe('a write run with a bounded page cache', () => {
  const database = openDatabase(':memory:')
  const cacheSize = () => (database.db.prepare('PRAGMA cache_size').get() as {cache_size: number}).cache_size
  database.db.exec('PRAGMA cache_size = -32768')

  test('runs under the bound, then gives the cache its size back', () => {
    expect(withPageCache(database, 4096, cacheSize)).toBe(-4096)
    expect(cacheSize()).toBe(-32768)
  })

  test('gives the cache its size back when the write fails', () => {
    expect(() =>
      withPageCache(database, 4096, () => {
        throw new Error('refused')
      }),
    ).toThrow('refused')
    expect(cacheSize()).toBe(-32768)
  })
})
