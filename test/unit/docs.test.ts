import {existsSync, readdirSync, readFileSync} from 'node:fs'
import {dirname, join, relative} from 'node:path'
import {describe, expect, it} from 'vitest'
import {ROOT} from '../helpers/cli.js'

/** docs/architecture.md stays true to the tree: it names every folder of src/ and no path that is gone. */

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8')

/** Markdown without its fenced code blocks, whose lines are neither headings nor links. */
const prose = (text: string) => text.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, '')

/** Every `code span` of a text, as written between its backticks. */
const codeSpans = (text: string) => [...prose(text).matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!)

/** Whether a path relative to the root exists; `*` in its last part matches any run of characters. */
function exists(path: string): boolean {
  const clean = path.replace(/\/$/, '')
  if (!clean.includes('*')) return existsSync(join(ROOT, clean))
  const folder = dirname(clean)
  if (!existsSync(join(ROOT, folder))) return false
  const name = new RegExp(
    `^${clean
      .slice(folder.length + 1)
      .replaceAll('.', '\\.')
      .replaceAll('*', '.*')}$`,
  )
  return readdirSync(join(ROOT, folder)).some((entry) => name.test(entry))
}

describe('docs/architecture.md', () => {
  const doc = read('docs/architecture.md')
  const named = new Set(codeSpans(doc).map((span) => span.replace(/\/$/, '')))

  /**
   * Every folder, however deep, but those of the command topics: each of those is a topic, named
   * as it, and listed in the README's Commands table (test/unit/readme.test.ts) and the generated
   * reference; the Layout describes them once, as `src/commands/<topic>/<verb>.ts`.
   */
  const folders = [
    'src',
    ...readdirSync(join(ROOT, 'src'), {recursive: true, withFileTypes: true})
      .filter((entry) => entry.isDirectory())
      .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)).split('\\').join('/'))
      .filter((folder) => !folder.startsWith('src/commands/')),
  ]

  it('names every folder under src/', () => {
    expect(folders.length).toBeGreaterThan(20)
    expect(folders.filter((folder) => !named.has(folder))).toEqual([])
  })

  it('names only paths that exist', () => {
    const top = /^(src|test|scripts|bench|bin|docs|examples)\//
    const paths = codeSpans(doc).filter((span) => top.test(span) && !/[<\s]/.test(span))
    expect(paths.length).toBeGreaterThan(20)
    expect(paths.filter((path) => !exists(path))).toEqual([])
  })

  it('names, in each folder of the Layout, only files that are in it', () => {
    const rows = [...doc.matchAll(/^\| `(src[^`]*)` \| (.*) \|$/gm)]
    expect(rows.length).toBe(folders.length)
    const missing = rows.flatMap(([, folder, text]) =>
      codeSpans(text!)
        .filter((span) => /^[\w.*-]+(\/[\w.*-]+)*\.(ts|js|json|css|svg)$/.test(span))
        .filter((file) => !exists(`${folder}/${file}`) && !exists(file))
        .map((file) => `${folder}: ${file}`),
    )
    expect(missing).toEqual([])
  })
})
