import {readFileSync} from 'node:fs'
import type {Document, Node as YamlNode} from 'yaml'
import {MONEY_FIELDS, moneyFields} from './money.js'
import type {Position, Problems} from './problems.js'

/** The place of the deepest part of a path (`[kind, name, field]`) that the file has. */
export type Where = (segments: (string | number)[]) => Position

/**
 * The file's YAML (or JSON), or the `given` text read as one, as plain data, and where each part
 * of it is, for error messages; or undefined when it cannot be read as a document at all (its
 * problems are in `problems`).
 *
 * Every number a money field holds is replaced by the text it was written as: YAML reads `10.00`
 * as 10 and `1e3` as 1000, and a wei amount past 2^53 as the nearest double, none of which is the
 * amount the command line would read from that text.
 */
export async function readDocument(
  path: string,
  problems: Problems,
  given?: string,
): Promise<{raw: unknown; where: Where} | undefined> {
  const YAML = await import('yaml')
  let text: string
  try {
    // The text itself, for a fixture given as a document rather than a file.
    text = given ?? readFileSync(path, 'utf8')
  } catch (err) {
    problems.add(undefined, `cannot read ${path}: ${(err as Error).message}`)
    return undefined
  }
  const lines = new YAML.LineCounter()
  const doc = YAML.parseDocument(text, {lineCounter: lines, uniqueKeys: true})
  const position = (offset: number): Position => lines.linePos(offset)
  // The place of the deepest part of `segments` that the file has: a field's key, else its
  // record's, else where the document starts.
  const where: Where = (segments) => {
    for (let n = segments.length; n > 0; n--) {
      const parent = doc.getIn(segments.slice(0, n - 1), true) as
        | {items?: {key?: {value?: unknown; range?: number[]}}[]}
        | undefined
      const pair = parent?.items?.find((p) => String(p.key?.value) === String(segments[n - 1]))
      const offset = pair?.key?.range?.[0]
      if (offset !== undefined) return position(offset)
    }
    return position(doc.contents?.range[0] ?? 0)
  }
  // A syntax error leaves no document to check, and those after it mostly follow from it: the
  // first is the one to fix. A name or field given twice is a problem like any other.
  const syntax = doc.errors.find((e) => e.code !== 'DUPLICATE_KEY')
  if (syntax !== undefined) {
    problems.add(
      position(syntax.pos[0]),
      syntax.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, ''),
    )
    return undefined
  }
  for (const e of doc.errors)
    problems.add(position(e.pos[0]), duplicateKey(doc, e.pos[0], position) ?? 'a key is given twice')
  let raw: unknown
  try {
    raw = doc.toJS()
  } catch (err) {
    // The yaml library refuses aliases that would expand without end (a "billion laughs" file).
    let alias: number | undefined
    YAML.visit(doc, {
      Alias: (_key, node) => {
        alias ??= node.range?.[0]
      },
    })
    problems.add(position(alias ?? 0), (err as Error).message)
    return undefined
  }
  keepMoneyText(doc, raw, YAML.isScalar)
  return {raw, where}
}

/** Replace each number of a money field by the text the file has for it. */
function keepMoneyText(doc: Document, raw: unknown, isScalar: (n: unknown) => boolean): void {
  if (!isObject(raw)) return
  for (const kind of Object.keys(MONEY_FIELDS) as (keyof typeof MONEY_FIELDS)[]) {
    const section = Object.hasOwn(raw, kind) ? raw[kind] : undefined
    if (!isObject(section)) continue
    for (const [name, record] of Object.entries(section)) {
      if (!isObject(record)) continue
      for (const field of moneyFields(kind)) {
        if (typeof record[field] !== 'number') continue
        const node = nodeAt(doc, [kind, name, field])
        const source = isScalar(node) ? (node as {source?: unknown}).source : undefined
        if (typeof source === 'string') record[field] = source
      }
    }
  }
}

/** The node at a path of map keys, through aliases (`w2: *w1` is w1's record). */
function nodeAt(doc: Document, segments: string[]): unknown {
  let node: unknown = doc.contents
  for (const segment of segments) {
    node = resolved(doc, node)
    const items = (node as {items?: {key?: unknown; value?: unknown}[]} | null)?.items
    const pair = items?.find((p) => String((p.key as {value?: unknown} | null)?.value ?? p.key) === segment)
    if (pair === undefined) return undefined
    node = pair.value
  }
  return resolved(doc, node)
}

function resolved(doc: Document, node: unknown): unknown {
  const alias = node as {type?: unknown; resolve?: (doc: Document) => YamlNode | undefined} | null
  return alias?.type === 'ALIAS' && typeof alias.resolve === 'function' ? alias.resolve(doc) : node
}

/**
 * What a duplicate key is, named by its path (`users.alice: named twice`), with the line of the
 * first one.
 */
function duplicateKey(
  doc: Document,
  offset: number,
  position: (offset: number) => Position,
): string | undefined {
  type Key = {value?: unknown; range?: number[]} | null | undefined
  const search = (node: unknown, path: string[]): string | undefined => {
    const items = (node as {items?: unknown[]} | null)?.items
    if (!Array.isArray(items)) return undefined
    for (const [i, item] of items.entries()) {
      // A map's items are pairs; a sequence's are the nodes themselves.
      if (item === null || typeof item !== 'object' || !('key' in item)) {
        const inner = search(item, path)
        if (inner !== undefined) return inner
        continue
      }
      const {key, value} = item as {key: Key; value: unknown}
      const name = [...path, String(key?.value)]
      if (key?.range?.[0] === offset) {
        const first = items.slice(0, i).find((p) => (p as {key?: Key}).key?.value === key.value) as
          | {key?: Key}
          | undefined
        const line = first?.key?.range?.[0]
        const before = line === undefined ? '' : ` (first at line ${position(line).line})`
        return path.length === 1
          ? `${name.join('.')}: the name is used twice${before}; each record needs a name of its own`
          : `${name.join('.')}: given twice${before}`
      }
      const inner = search(value, name)
      if (inner !== undefined) return inner
    }
    return undefined
  }
  return search(doc.contents, [])
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v)
