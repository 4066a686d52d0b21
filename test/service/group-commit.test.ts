import {describe, expect, test} from 'vitest'
import {Database, keepWrites} from '../../src/sandbox/storage/database.js'
import {RowsInsert} from '../../src/sandbox/storage/rows.js'
import {query, start, tempDir} from './helpers.js'
import {createTx, data, wallet} from './money-helpers.js'

const turn = () => new Promise((resolve) => setImmediate(resolve))

function groupedDatabase(file: string): Database {
  const database = new Database(file)
  database.db.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL)')
  database.groupCommits()
  return database
}

const insert = (database: Database, text: string) =>
  database.db.prepare('INSERT INTO notes (text) VALUES (?)').run(text)
const notesOnDisk = (file: string) => query(file, 'SELECT text FROM notes ORDER BY id').map((r) => r.text)

describe('group commit', () => {
  test('commits the transactions of one turn of the event loop together, at the end of the turn', async () => {
    const files = tempDir()
    const database = groupedDatabase(files.file)
    try {
      database.transaction(() => insert(database, 'a'))
      database.transaction(() => insert(database, 'b'))
      const committed = database.committed()
      expect(committed).toBeDefined()
      // Another connection does not see them yet…
      expect(notesOnDisk(files.file)).toEqual([])
      await committed
      // …and sees both once the turn is over.
      expect(notesOnDisk(files.file)).toEqual(['a', 'b'])
      expect(database.committed()).toBeUndefined()
    } finally {
      database.close()
      files.cleanup()
    }
  })

  test('a failing transaction undoes its own writes only; its neighbours in the group commit', async () => {
    const files = tempDir()
    const database = groupedDatabase(files.file)
    try {
      database.transaction(() => insert(database, 'kept'))
      expect(() =>
        database.transaction(() => {
          insert(database, 'undone')
          throw new Error('refused')
        }),
      ).toThrow('refused')
      database.transaction(() => insert(database, 'also kept'))
      await database.committed()
      expect(notesOnDisk(files.file)).toEqual(['kept', 'also kept'])
    } finally {
      database.close()
      files.cleanup()
    }
  })

  test('nested transactions keep their all-or-nothing, whether they open a savepoint or share the one below', async () => {
    const files = tempDir()
    const database = groupedDatabase(files.file)
    const note = database.prepare('INSERT INTO notes (text) VALUES (?)')
    const count = database.prepare<{n: number}>('SELECT count(*) AS n FROM notes')
    const refused = (text: string, keep = false) => {
      const fail = () => {
        note.run(text)
        throw keep ? keepWrites(new Error(text)) : new Error(text)
      }
      // Inside a transaction that has written nothing yet (it shares its savepoint), nested twice.
      try {
        database.transaction(() => database.transaction(fail))
      } catch {
        // the outer caller goes on, as a request goes on to store its refusal
      }
    }
    try {
      database.transaction(() => {
        count.get()
        refused('undone, first thing in the request')
        note.run('kept, after a refusal')
        refused('undone, after a write')
        refused('kept by keepWrites', true)
        database.transaction(() => note.run('kept, nested'))
      })
      expect(() =>
        database.transaction(() => {
          refused('undone, then its request fails too')
          note.run('undone with its request')
          throw new Error('the request fails')
        }),
      ).toThrow('the request fails')
      await database.committed()
      expect(notesOnDisk(files.file)).toEqual(['kept, after a refusal', 'kept by keepWrites', 'kept, nested'])
    } finally {
      database.close()
      files.cleanup()
    }
  })

  test('rows held back until the group commits: read by whoever asks, dropped only with the savepoint that held them', async () => {
    const files = tempDir()
    const database = groupedDatabase(files.file)
    database.db.exec('CREATE TABLE tags (text TEXT NOT NULL)')
    const notes = new RowsInsert(database, 'INSERT INTO notes (text)', 1)
    const tags = new RowsInsert(database, 'INSERT INTO tags (text)', 1)
    const texts = database.prepare<{text: string}>('SELECT text FROM notes ORDER BY id')
    const tagged = database.prepare<{text: string}>('SELECT text FROM tags')
    const hold = (...texts: string[]) => notes.hold(texts.map((text) => [text]))
    const fails = (fn: () => void) =>
      expect(() =>
        database.transaction(() => {
          fn()
          throw new Error('refused')
        }),
      ).toThrow('refused')
    try {
      database.transaction(() => hold('a', 'b'))
      // Held, not written: nothing in the file yet, even for this connection's own SQL…
      expect(query(files.file, 'SELECT count(*) AS n FROM notes')).toEqual([{n: 0}])
      // …until a statement reads the table: it sees them, written first.
      expect(database.transaction(() => texts.all().map((r) => r.text))).toEqual(['a', 'b'])
      database.transaction(() => hold('c'))
      // A request that reads (so writes the held rows inside its savepoint), then fails: its
      // neighbours' rows are held again, its own are gone.
      fails(() => {
        hold('undone')
        texts.all()
      })
      // One whose nested transaction, begun before the request wrote anything (so sharing its
      // savepoint), reads, holds and fails: the request goes on without what the nested one held.
      database.transaction(() => {
        try {
          database.transaction(() =>
            database.transaction(() => {
              texts.all()
              hold('undone, nested')
              throw new Error('refused')
            }),
          )
        } catch {
          // the request goes on
        }
        hold('d', 'e')
      })
      // A read in a nested savepoint writes a neighbour's held row inside it: neither the
      // savepoint's rollback nor its request's drops that row, or holds it twice.
      database.transaction(() => hold('f'))
      fails(() => {
        hold('undone with its request')
        try {
          database.transaction(() => {
            texts.all()
            hold('undone, in a savepoint')
            throw new Error('refused')
          })
        } catch {
          // the request goes on
        }
        texts.all()
      })
      database.transaction(() => hold('g'))
      fails(() => hold('undone, never written'))
      // A statement writes the held rows of the tables it names, and leaves the others held.
      database.transaction(() => {
        hold('h')
        tags.hold([['kept tag']])
      })
      fails(() => {
        texts.all()
        tags.hold([['undone tag']])
        tagged.all()
      })
      await database.committed()
      expect(notesOnDisk(files.file)).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'])
      expect(query(files.file, 'SELECT text FROM tags')).toEqual([{text: 'kept tag'}])
      // Outside a group commit, rows are written at once.
      expect(database.committed()).toBeUndefined()
    } finally {
      database.close()
      files.cleanup()
    }
  })

  test('a commit that fails takes the rows it held back with it', async () => {
    const files = tempDir()
    const database = new Database(files.file)
    database.db.exec(`PRAGMA foreign_keys = ON;
      CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL);
      CREATE TABLE parents (id INTEGER PRIMARY KEY);
      CREATE TABLE children (id INTEGER PRIMARY KEY,
        parent INTEGER REFERENCES parents (id) DEFERRABLE INITIALLY DEFERRED)`)
    database.groupCommits()
    const notes = new RowsInsert(database, 'INSERT INTO notes (text)', 1)
    try {
      database.transaction(() => notes.hold([['lost']]))
      database.transaction(() => database.db.prepare('INSERT INTO children (parent) VALUES (2)').run())
      database.transaction(() => notes.hold([['lost too']]))
      await expect(database.committed()).rejects.toThrow(/FOREIGN KEY/)
      database.transaction(() => notes.hold([['next turn']]))
      await database.committed()
      expect(notesOnDisk(files.file)).toEqual(['next turn'])
    } finally {
      database.close()
      files.cleanup()
    }
  })

  test('held rows that cannot be written fail the whole group, not only the statement that wrote them', async () => {
    const files = tempDir()
    const database = new Database(files.file)
    database.db.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL UNIQUE)')
    database.groupCommits()
    const notes = new RowsInsert(database, 'INSERT INTO notes (text)', 1)
    const count = database.prepare<{n: number}>('SELECT count(*) AS n FROM notes')
    try {
      database.transaction(() => notes.hold([['answered']]))
      database.transaction(() => notes.hold([['twice'], ['twice']]))
      // A read outside any request writes what is held, and fails on the second 'twice'…
      expect(() => count.get()).toThrow(/UNIQUE/)
      // …which leaves every row held, so the group cannot commit as if 'answered' were written.
      await expect(database.committed()).rejects.toThrow(/UNIQUE/)
      expect(notesOnDisk(files.file)).toEqual([])
    } finally {
      database.close()
      files.cleanup()
    }
  })

  test('a commit that fails rejects its waiters and leaves none of the group’s writes', async () => {
    const files = tempDir()
    const database = new Database(files.file)
    // A deferred foreign key is checked at COMMIT: a way to make a commit fail on purpose.
    database.db.exec(`PRAGMA foreign_keys = ON;
      CREATE TABLE parents (id INTEGER PRIMARY KEY);
      CREATE TABLE children (id INTEGER PRIMARY KEY,
        parent INTEGER REFERENCES parents (id) DEFERRABLE INITIALLY DEFERRED)`)
    database.groupCommits()
    try {
      database.transaction(() => database.db.prepare('INSERT INTO parents (id) VALUES (1)').run())
      database.transaction(() => database.db.prepare('INSERT INTO children (parent) VALUES (2)').run())
      await expect(database.committed()).rejects.toThrow(/FOREIGN KEY/)
      expect(query(files.file, 'SELECT id FROM parents')).toEqual([])
      // The next turn starts a new group.
      database.transaction(() => database.db.prepare('INSERT INTO parents (id) VALUES (3)').run())
      await database.committed()
      expect(query(files.file, 'SELECT id FROM parents')).toEqual([{id: 3}])
    } finally {
      database.close()
      files.cleanup()
    }
  })

  test('close commits what is pending', async () => {
    const files = tempDir()
    const database = groupedDatabase(files.file)
    try {
      database.transaction(() => insert(database, 'last'))
      database.close()
      expect(notesOnDisk(files.file)).toEqual(['last'])
      await turn()
    } finally {
      files.cleanup()
    }
  })

  test('every answered transfer is already in the data file when its answer arrives', async () => {
    const files = tempDir()
    const t = await start({data: files.file, rateLimit: 'off'})
    try {
      const [from, to] = await Promise.all([wallet(t, 'USD', 100_000), wallet(t, 'USD', 0)])
      const replies = await Promise.all(
        Array.from({length: 40}, async () => {
          const reply = await createTx(t, {
            amount: 100,
            currency: 'USD',
            method: 'wallet',
            sourceWalletId: from,
            destinationWalletId: to,
          })
          // Read the file as another process would, the moment the answer is in.
          const id = data(reply).id as string
          return {
            status: reply.status,
            onDisk: query(files.file, 'SELECT id FROM transactions WHERE id = ?', id),
          }
        }),
      )
      expect(replies.every((r) => r.status === 201 && r.onDisk.length === 1)).toBe(true)
    } finally {
      await t.close()
      files.cleanup()
    }
  })
})
