import {spawn} from 'node:child_process'
import {mkdtempSync, readdirSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import {pathToFileURL} from 'node:url'
import {afterEach, describe, expect, it} from 'vitest'
import {ListenState} from '../../src/core/webhooks/listen-state.js'

/** Processes of the built listen state making the listener key at once. The journal itself: test/unit/listen-journal.test.ts. */
describe('the listen key', () => {
  const dirs: string[] = []
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, {recursive: true, force: true})
  })

  it('gives processes starting at once the same listener key, and the one on disk', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'payctl-journal-'))
    dirs.push(dir)
    const module = pathToFileURL(resolve('dist/core/webhooks/listen-state.js')).href
    // Every process loads the module, says so, and waits for the word to make the key: given to
    // all once all are ready, so one wins and the others read its key.
    const script = `const {ListenState} = await import(${JSON.stringify(module)})
      process.stdout.write('ready\\n')
      process.stdin.once('data', () => process.stdout.write(ListenState.key('p', ${JSON.stringify(dir)})))`
    const children = Array.from({length: 6}, () => {
      const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
        stdio: ['pipe', 'pipe', 'inherit'],
      })
      let out = ''
      const ready = new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (c: Buffer) => {
          out += c.toString()
          if (out.startsWith('ready\n')) resolve()
        })
        child.once('exit', (code) => reject(new Error(`exited with ${code} before it was ready`)))
      })
      const key = new Promise<string>((resolve) =>
        child.once('exit', () => resolve(out.slice('ready\n'.length))),
      )
      return {child, ready, key}
    })
    await Promise.all(children.map((c) => c.ready))
    for (const {child} of children) child.stdin.end('go')
    const keys = await Promise.all(children.map((c) => c.key))
    expect(keys[0]).toMatch(/^lk_[0-9a-f]{32}$/)
    expect(new Set(keys)).toEqual(new Set([keys[0]]))
    expect(ListenState.key('p', dir)).toBe(keys[0])
    expect(readdirSync(dir)).toEqual(['listen-p.json'])
  })
})
