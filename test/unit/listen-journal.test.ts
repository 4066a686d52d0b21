import {lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {JOURNAL_KEEP_MS, JOURNAL_TRIM_EVERY_MS, ListenState} from '../../src/core/webhooks/listen-state.js'

/** The journal and key of `webhooks listen`, on the clock the test gives it. Processes racing for the key: test/processes. */
describe('the listen journal', () => {
  const dirs: string[] = []
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, {recursive: true, force: true})
  })
  const temp = () => {
    const dir = mkdtempSync(join(tmpdir(), 'payctl-journal-'))
    dirs.push(dir)
    return dir
  }
  const journalIds = (dir: string) =>
    readFileSync(join(dir, 'listen-p.journal'), 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => (JSON.parse(l) as {d: string}).d)
  const ok = {forwarded: true, status: 200, durationMs: 1}

  it('drops expired entries during a long run, in memory and on disk, not only at start', () => {
    const dir = temp()
    let now = Date.parse('2025-01-01T00:00:00Z')
    const state = ListenState.open('p', dir, {now: () => now})
    state.record('dlv_old', ok)
    now += JOURNAL_KEEP_MS / 2
    state.record('dlv_middle', ok)
    expect(journalIds(dir)).toEqual(['dlv_old', 'dlv_middle'])

    now += JOURNAL_KEEP_MS / 2 + JOURNAL_TRIM_EVERY_MS
    state.record('dlv_new', ok)
    expect(state.settled('dlv_old')).toBeUndefined()
    expect(state.settled('dlv_middle')).toEqual(ok)
    expect(state.settled('dlv_new')).toEqual(ok)
    expect(journalIds(dir)).toEqual(['dlv_middle', 'dlv_new'])
    // Appends go on after the rewrite, and a restart reads the trimmed journal.
    state.record('dlv_after', ok)
    const reopened = ListenState.open('p', dir, {now: () => now})
    expect(reopened.listenerKey).toBe(state.listenerKey)
    expect(reopened.settled('dlv_after')).toEqual(ok)
    expect(reopened.settled('dlv_old')).toBeUndefined()
  })

  it('trims on a record once the interval has passed, and only appends in between', () => {
    const dir = temp()
    let now = Date.parse('2025-01-01T00:00:00Z')
    const state = ListenState.open('p', dir, {now: () => now})
    state.record('dlv_a', ok)
    now += JOURNAL_KEEP_MS + 1
    // Past the trim interval since the open: this record trims; the next, a moment later, only appends.
    state.record('dlv_b', ok)
    expect(journalIds(dir)).toEqual(['dlv_b'])
    now += 1
    state.record('dlv_c', ok)
    expect(journalIds(dir)).toEqual(['dlv_b', 'dlv_c'])
  })

  it('never reads or writes through links planted at the key, the journal or their temporary files', () => {
    const dir = temp()
    const away = temp()
    let now = Date.parse('2025-01-01T00:00:00Z')
    const planted = {
      'key.json': `${JSON.stringify({listenerKey: 'lk_planted'})}\n`,
      journal: `${JSON.stringify({d: 'dlv_planted', at: now, o: ok})}\n`,
    }
    for (const [name, text] of Object.entries(planted)) writeFileSync(join(away, name), text, {mode: 0o600})
    symlinkSync(join(away, 'key.json'), join(dir, 'listen-p.json'))
    symlinkSync(join(away, 'journal'), join(dir, 'listen-p.journal'))
    // Temporary files were once named after the process: links there must not be written through.
    for (const name of [`listen-p.json.${process.pid}.tmp`, `listen-p.journal.${process.pid}.tmp`])
      symlinkSync(join(away, name), join(dir, name))

    const state = ListenState.open('p', dir, {now: () => now})
    expect(state.listenerKey).toMatch(/^lk_[0-9a-f]{32}$/)
    expect(state.settled('dlv_planted')).toBeUndefined()
    state.record('dlv_a', ok)
    now += JOURNAL_KEEP_MS + JOURNAL_TRIM_EVERY_MS
    state.record('dlv_b', ok) // trims: the journal is rewritten
    state.record('dlv_c', ok)

    expect(readdirSync(away).sort()).toEqual(['journal', 'key.json'])
    for (const [name, text] of Object.entries(planted))
      expect(readFileSync(join(away, name), 'utf8')).toBe(text)
    for (const name of ['listen-p.json', 'listen-p.journal']) {
      const st = lstatSync(join(dir, name))
      expect(st.isFile(), name).toBe(true)
      expect((st.mode & 0o777).toString(8), name).toBe('600')
    }
    expect(journalIds(dir)).toEqual(['dlv_b', 'dlv_c'])
    expect(ListenState.open('p', dir, {now: () => now}).listenerKey).toBe(state.listenerKey)
  })
})
