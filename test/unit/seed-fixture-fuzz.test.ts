import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import fc from 'fast-check'
import {afterAll, describe, expect, it} from 'vitest'
import YAML from 'yaml'
import {PayctlError} from '../../src/core/index.js'
import {loadFixture} from '../../src/core/seed/index.js'

/**
 * Bad input: random mutations of a valid fixture, as text and as structure, in YAML and JSON.
 * Each one either loads (and then every reference points at a record of the fixture) or fails
 * with INVALID_FIXTURE naming the file and the line — never another error.
 */

const dir = mkdtempSync(join(tmpdir(), 'payctl-fixture-fuzz-'))
afterAll(() => rmSync(dir, {recursive: true, force: true}))
const SHOP = readFileSync(join(import.meta.dirname, '../../examples/fixtures/shop.yaml'), 'utf8')
const SHOP_JSON = JSON.stringify(YAML.parse(SHOP), null, 2)

let files = 0
async function load(text: string, ext: 'yaml' | 'json') {
  const path = join(dir, `f${files++}.${ext}`)
  writeFileSync(path, text)
  try {
    const fixture = await loadFixture(path, {})
    const keys = new Set(fixture.records.map((r) => `${r.kind}.${r.name}`))
    for (const r of fixture.records)
      for (const d of r.dependsOn) expect(keys, `${r.kind}.${r.name}`).toContain(d)
    return {ok: true as const}
  } catch (err) {
    const context = `${text}\n---\n${err instanceof Error ? err.stack : String(err)}`
    expect(err, context).toBeInstanceOf(PayctlError)
    const e = err as PayctlError
    expect(e.code, context).toBe('INVALID_FIXTURE')
    expect(e.exitCode).toBe(2)
    // file:line (and column) first, then what is wrong: the one problem, or each of several under
    // the line that counts them.
    const place = new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+(:\\d+)?: \\S`)
    const [first, ...rest] = e.message.split('\n')
    if (rest.length === 0) expect(first, context).toMatch(place)
    else {
      expect(first, context).toMatch(/^\d+ problems in \S+; nothing was sent:$/)
      for (const line of rest)
        if (!/^ {2}… and \d+ more$/.test(line)) expect(line.replace(/^ {2}/, ''), context).toMatch(place)
    }
    return {ok: false as const, message: e.message}
  } finally {
    rmSync(path, {force: true})
  }
}

// Characters that mean something to YAML or to the fixture language.
const significant = fc.constantFrom(
  ...': {}[],&*!|>\'"%@`#-?\n\t ${}.[]0123456789'.split(''),
  '${users.alice.id}',
  '${env.NOPE}',
  '{{i}}',
  '{{n}}',
  'count: 3',
  'count: -1',
  '&a ',
  '*a',
  '<<: *a',
  '~',
  'null',
  '\u0000',
  '\uFEFF',
  'é',
)
const insertion = fc.oneof(
  significant,
  fc.string({maxLength: 8}),
  fc.string({unit: 'grapheme', maxLength: 4}),
)

type Edit = (text: string) => string
const at = (text: string, f: number) => Math.floor(f * (text.length + 1))
const textEdit: fc.Arbitrary<Edit> = fc.oneof(
  fc.tuple(fc.double({min: 0, max: 1, noNaN: true}), insertion).map(([f, s]) => (t: string) => {
    const i = at(t, f)
    return t.slice(0, i) + s + t.slice(i)
  }),
  fc
    .tuple(fc.double({min: 0, max: 1, noNaN: true}), fc.integer({min: 1, max: 30}))
    .map(([f, n]) => (t: string) => {
      const i = at(t, f)
      return t.slice(0, i) + t.slice(i + n)
    }),
  fc.double({min: 0, max: 1, noNaN: true}).map((f) => (t: string) => t.slice(0, at(t, f))),
  fc.tuple(fc.nat(), fc.nat()).map(([a, b]) => (t: string) => {
    const lines = t.split('\n')
    const i = a % lines.length
    const j = b % lines.length
    ;[lines[i], lines[j]] = [lines[j]!, lines[i]!]
    return lines.join('\n')
  }),
  fc.tuple(fc.nat(), fc.integer({min: -4, max: 4})).map(([a, shift]) => (t: string) => {
    const lines = t.split('\n')
    const i = a % lines.length
    lines[i] = shift >= 0 ? ' '.repeat(shift) + lines[i] : lines[i]!.slice(-shift)
    return lines.join('\n')
  }),
  fc.nat().map((a) => (t: string) => {
    const lines = t.split('\n')
    const i = a % lines.length
    lines.splice(i, 0, lines[i]!)
    return lines.join('\n')
  }),
)

// Structural edits: a value replaced by anything JSON can hold, a key removed or renamed.
const jsonValue = fc.oneof(
  fc.jsonValue({maxDepth: 2}),
  fc.constantFrom(
    '${users.alice.id}',
    '${users.ghost.id}',
    '${wallets.alice_usd.balance}',
    '1.005USD',
    -1,
    0,
    1e21,
  ),
)
type Tree = Record<string, unknown>
const paths = (value: unknown, prefix: string[] = []): string[][] =>
  value !== null && typeof value === 'object'
    ? [prefix, ...Object.entries(value as Tree).flatMap(([k, v]) => paths(v, [...prefix, k]))]
    : [prefix]
const treeEdit = fc
  .tuple(fc.nat(), fc.constantFrom('replace', 'delete', 'rename'), jsonValue, fc.string({maxLength: 10}))
  .map(([pick, op, value, name]) => (tree: Tree) => {
    const all = paths(tree).filter((p) => p.length > 0)
    const path = all[pick % all.length]!
    const parent = path.slice(0, -1).reduce<Tree>((node, k) => node[k] as Tree, tree)
    const key = path.at(-1)!
    if (op === 'replace') parent[key] = value
    else if (op === 'delete') delete parent[key]
    else {
      parent[name] = parent[key]
      if (name !== key) delete parent[key]
    }
    return tree
  })

describe('fixture files against random mutations', () => {
  it('the unmutated examples load', async () => {
    expect(await load(SHOP, 'yaml')).toEqual({ok: true})
    expect(await load(SHOP_JSON, 'json')).toEqual({ok: true})
  })

  it('a YAML fixture with random text edits loads or fails with INVALID_FIXTURE at file:line', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(textEdit, {minLength: 1, maxLength: 4}), async (edits) => {
        await load(
          edits.reduce((t, e) => e(t), SHOP),
          'yaml',
        )
      }),
      {numRuns: 500},
    )
  })

  it('a JSON fixture with random text edits loads or fails with INVALID_FIXTURE at file:line', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(textEdit, {minLength: 1, maxLength: 3}), async (edits) => {
        await load(
          edits.reduce((t, e) => e(t), SHOP_JSON),
          'json',
        )
      }),
      {numRuns: 300},
    )
  })

  it('a fixture with random structural edits loads or fails with INVALID_FIXTURE at file:line', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(treeEdit, {minLength: 1, maxLength: 3}),
        fc.constantFrom('yaml', 'json'),
        async (edits, ext) => {
          const tree = edits.reduce((t, e) => e(t), JSON.parse(SHOP_JSON) as Tree)
          await load(ext === 'json' ? JSON.stringify(tree, null, 2) : YAML.stringify(tree), ext)
        },
      ),
      {numRuns: 500},
    )
  })

  it('YAML aliases that would expand without end are refused, not followed', async () => {
    const bomb = [
      'users:',
      '  a: &a {email: "x", first_name: "y", last_name: "z"}',
      ...Array.from(
        {length: 12},
        (_, i) =>
          `  l${i}: &l${i} [${Array(10)
            .fill(i === 0 ? '*a' : `*l${i - 1}`)
            .join(', ')}]`,
      ),
    ].join('\n')
    const r = await load(bomb, 'yaml')
    expect(r.ok).toBe(false)
  })
})
