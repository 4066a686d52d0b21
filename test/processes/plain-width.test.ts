import {globSync} from 'node:fs'
import {createRequire} from 'node:module'
import {join} from 'node:path'
import type CliTable3 from 'cli-table3'
import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {plainWidth} from '../../src/cli/rendering/plain-width.js'
import {ROOT} from '../helpers/cli.js'

/**
 * The bundle's cli-table3 measures plain text with plainWidth (src/cli/rendering/plain-width.ts) instead of
 * string-width (scripts/bundle-table.ts). Its answers must be string-width's own, the string-width
 * cli-table3 itself loads, so that every table payctl prints is laid out byte for byte as
 * cli-table3 lays it out.
 */

const fromCliTable3 = createRequire(createRequire(import.meta.url).resolve('cli-table3'))
const stringWidth = fromCliTable3('string-width') as (text: string) => number
const emojiRegex = createRequire(fromCliTable3.resolve('string-width'))('emoji-regex') as () => RegExp
const RealTable = createRequire(import.meta.url)('cli-table3') as typeof CliTable3

/** The bundle's own cli-table3 script (dist/bundle/chunks/cli-table3-*.cjs: `npm run build` first). */
function bundledTable(): typeof CliTable3 {
  const [script] = globSync('dist/bundle/chunks/cli-table3-*.cjs', {cwd: ROOT})
  if (script === undefined) throw new Error('no cli-table3 script in dist/bundle: npm run build')
  return createRequire(import.meta.url)(join(ROOT, script)) as typeof CliTable3
}

const sgr = fc
  .array(fc.integer({min: 0, max: 9999}), {maxLength: 3})
  .map((codes) => `\u001b[${codes.join(';')}m`)
const printable = fc.string({unit: fc.integer({min: 0x20, max: 0x7e}).map((c) => String.fromCharCode(c))})
/** Plain text: printable ASCII, the ellipsis, colour and weight sequences. */
const plain = fc
  .array(fc.oneof(printable, fc.constant('…'), sgr), {maxLength: 8})
  .map((parts) => parts.join(''))

/** Text that is not plain: wide (CJK), emoji, combining marks, controls, other escape sequences. */
const OTHERS = [
  '日本語',
  'ｗｉｄｅ',
  '한국어 text',
  '😀',
  '👍🏽',
  '👨‍👩‍👧',
  '🇫🇷',
  '#️⃣',
  '1️⃣',
  '*\u20e3',
  '©️',
  '™',
  'é',
  'e\u0301',
  'a\u0300\u036f',
  '\u200b',
  '\u0007',
  '\u007f',
  '\u009b31m',
  '\t',
  '\n',
  '\u001b]8;;https://example.test\u0007link\u001b]8;;\u0007',
  '\u001b[12345m',
  '\u001b[1;m',
  '\u001b[2J',
  '\u001b',
  'Ã©',
  '\ud83d',
]
const other = fc.constantFrom(...OTHERS)
const anyText = fc.array(fc.oneof(plain, other), {maxLength: 5}).map((parts) => parts.join(''))

describe('the width cli-table3 measures cells with, in the bundle', () => {
  it('answers plain text itself, as string-width does', () => {
    fc.assert(
      fc.property(plain, (text) => {
        expect(plainWidth(text), JSON.stringify(text)).toBe(stringWidth(text))
      }),
      {numRuns: 2000},
    )
    for (const text of [
      '',
      'wal_1a3e8009f003061d37dd3eba',
      '1,023.98 USD',
      '…',
      '\u001b[1mID\u001b[22m',
      '\u001b[m',
    ])
      expect(plainWidth(text), JSON.stringify(text)).toBe(stringWidth(text))
  })

  it('leaves wide, emoji and combining characters, controls and other sequences to string-width', () => {
    for (const text of OTHERS) expect(plainWidth(text), JSON.stringify(text)).toBeUndefined()
    fc.assert(
      fc.property(anyText, (text) => {
        const width = plainWidth(text) ?? stringWidth(text)
        expect(width, JSON.stringify(text)).toBe(stringWidth(text))
      }),
      {numRuns: 2000},
    )
  })

  it("is plain text string-width's emoji expression finds nothing in", () => {
    // Where the expression takes `#`, `*` or a digit, it wants U+FE0F or U+20E3 after it.
    fc.assert(
      fc.property(plain, (text) => !emojiRegex().test(text)),
      {numRuns: 2000},
    )
    for (const c of ['#', '*', '0', '9', '…']) {
      expect(emojiRegex().test(`${c}${c}1#*`)).toBe(false)
      expect(emojiRegex().test(`${c}\ufe0f`)).toBe(c !== '…')
    }
  })

  it('lays tables out byte for byte as cli-table3 with string-width', () => {
    const Bundled = bundledTable()
    expect(Bundled).not.toBe(RealTable)
    const options = {
      style: {head: [], border: [], 'padding-left': 0, 'padding-right': 2},
      chars: {mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': ''},
    }
    const lay = (Table: typeof CliTable3, head: string[], rows: string[][]) => {
      const table = new Table({...options, head})
      for (const row of rows) table.push(row)
      return table.toString()
    }
    const cells = fc.array(fc.tuple(anyText, anyText, plain), {minLength: 1, maxLength: 4})
    fc.assert(
      fc.property(fc.tuple(plain, anyText, plain), cells, (head, rows) => {
        expect(lay(Bundled, head, rows)).toBe(lay(RealTable, head, rows))
      }),
      {numRuns: 300},
    )
  })
})
