import {existsSync, readdirSync, readFileSync} from 'node:fs'
import {dirname, join, relative} from 'node:path'
import {describe, expect, it} from 'vitest'
import {ROOT} from '../helpers/cli.js'

/**
 * The README and docs/ stay true to the tree and to each other: docs/architecture.md names every
 * folder of src/ and no path that is gone, the README stays short enough to read in one sitting,
 * and every link between the pages leads to a file and a heading that exist.
 */

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

describe('the README', () => {
  const readme = read('README.md')

  it('stays at most 400 lines: what a newcomer needs, the rest in docs/', () => {
    expect(readme.split('\n').length - 1).toBeLessThanOrEqual(400)
  })

  it('starts with what payctl is, then how to set it up and test it', () => {
    expect(readme.startsWith('# payctl\n\nA command-line tool for administering the payments platform')).toBe(
      true,
    )
    expect(readme.indexOf('## Set up')).toBeLessThan(readme.indexOf('\n## ', readme.indexOf('## Set up') + 1))
    expect(readme.slice(0, readme.indexOf('## The main job'))).toMatch(/\nnpm test {2,}# /)
  })
})

/** The README and every page of docs/. */
const pages = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'), {recursive: true, withFileTypes: true})
    .filter((entry) => entry.isFile() && entry.name.endsWith('.md'))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)).split('\\').join('/')),
]

/** A heading's anchor, as GitHub makes it: lower case, punctuation dropped, spaces as hyphens. */
const slug = (heading: string) =>
  heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '')
    .replace(/\s/g, '-')

const anchorsOf = new Map<string, Set<string>>()

/** The anchors of a page's headings; a repeated heading's gets `-1`, `-2`… as on GitHub. */
function anchors(page: string): Set<string> {
  const known = anchorsOf.get(page)
  if (known !== undefined) return known
  const seen = new Map<string, number>()
  const found = new Set<string>()
  for (const [, heading] of prose(read(page)).matchAll(/^#{1,6} (.+)$/gm)) {
    const base = slug(heading!)
    const count = seen.get(base) ?? 0
    seen.set(base, count + 1)
    found.add(count === 0 ? base : `${base}-${count}`)
  }
  anchorsOf.set(page, found)
  return found
}

/** The targets of a page's links and images, outside code. */
const links = (page: string) =>
  [
    ...prose(read(page))
      .replace(/`[^`\n]*`/g, 'code')
      .matchAll(/!?\[[^\]]*\]\(([^)\s]+)\)/g),
  ].map((m) => m[1]!)

/** What is wrong with one link of a page: a file or a heading that is not there. */
function brokenLink(page: string, target: string): string | undefined {
  if (/^[a-z]+:/i.test(target)) return undefined
  const [file, anchor] = target.split('#') as [string, string | undefined]
  const path = file === '' ? page : join(dirname(page), decodeURIComponent(file)).split('\\').join('/')
  if (!existsSync(join(ROOT, path))) return `${page}: ${target} (no file ${path})`
  if (anchor === undefined || !path.endsWith('.md')) return undefined
  return anchors(path).has(anchor) ? undefined : `${page}: ${target} (no heading #${anchor} in ${path})`
}

describe('the links of the README and docs/', () => {
  it('reads the pages and their links', () => {
    expect(pages).toContain('docs/architecture.md')
    expect(links('README.md').length).toBeGreaterThan(20)
    expect(anchors('docs/commands.md')).toContain('payctl-wallets-create')
  })

  it('lead to files and headings that exist', () => {
    const broken = pages.flatMap((page) =>
      links(page)
        .map((target) => brokenLink(page, target))
        .filter((problem) => problem !== undefined),
    )
    expect(broken).toEqual([])
  })

  it('find a missing file, a missing heading and a heading repeated', () => {
    expect(brokenLink('README.md', 'docs/nothing.md')).toMatch(/no file docs\/nothing\.md/)
    expect(brokenLink('README.md', 'docs/ci.md#nowhere')).toMatch(/no heading #nowhere/)
    expect(brokenLink('docs/ci.md', '#sandboxes-for-teams-and-ci')).toBeUndefined()
    expect(brokenLink('docs/ci.md', 'https://example.test/#anything')).toBeUndefined()
    expect(slug('Why 0.7× is out of reach')).toBe('why-07-is-out-of-reach')
    expect(slug('`payctl autocomplete [SHELL]`')).toBe('payctl-autocomplete-shell')
  })
})
