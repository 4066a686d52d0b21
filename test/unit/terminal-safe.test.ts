import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {paint, terminalSafe} from '../../src/cli/rendering/terminal.js'

/**
 * terminalSafe is the one escaping of every card, table and line payctl prints: each control
 * character shown as an escape, newlines and tabs kept where asked, and colour that paint wrote
 * kept. It copies the text between control characters in slices; these hold it to the rule
 * character by character, as it was first written.
 */

const ESC = String.fromCharCode(27)
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what is tested
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/
const colour = {colour: true}
const RED = paint('red', 'declined', colour)
const BOLD = paint('bold', '60.00 USD', colour)

/** The rule, one character at a time; `painted` are the strings paint returned that may be kept. */
function byCharacter(text: string, opts: {lines?: boolean; colour?: boolean}, painted: string[]): string {
  let out = ''
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (!CONTROL.test(c) || (opts.lines && (c === '\n' || c === '\t'))) {
      out += c
      continue
    }
    const kept =
      c === ESC && opts.colour !== false
        ? painted.filter((p) => text.startsWith(p, i)).sort((a, b) => b.length - a.length)[0]
        : undefined
    if (kept !== undefined) {
      out += kept
      i += kept.length - 1
      continue
    }
    const code = c.charCodeAt(0)
    out +=
      code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`
  }
  return out
}

const pieces = fc.oneof(
  fc.string({maxLength: 12}),
  fc.constantFrom(
    '\n',
    '\t',
    '\r',
    ESC,
    `${ESC}[2J`,
    `${ESC}]0;pwned\u0007`,
    '\u009b',
    '\u202e',
    '\u2069',
    '\u061c',
  ),
  fc.constantFrom(RED, BOLD, `${ESC}[31m`, `${ESC}[39m`),
)
const texts = fc.array(pieces, {maxLength: 12}).map((p) => p.join(''))
const options = fc.record({
  lines: fc.option(fc.boolean(), {nil: undefined}),
  colour: fc.option(fc.boolean(), {nil: undefined}),
})

describe('terminalSafe', () => {
  it('keeps a card of plain lines as it is, and escapes what would drive the terminal', () => {
    const card = 'id      bnpl_1\nstatus  active\n\tnext  60.00 USD'
    expect(terminalSafe(card, {lines: true})).toBe(card)
    expect(terminalSafe(card)).toBe('id      bnpl_1\\x0astatus  active\\x0a\\x09next  60.00 USD')
    expect(terminalSafe(`Eve${ESC}]0;pwned\u0007\nfdp\u202e.exe`, {lines: true})).toBe(
      'Eve\\x1b]0;pwned\\x07\nfdp\\u202e.exe',
    )
  })

  it("keeps paint's colour and escapes the same codes when they came in a value", () => {
    expect(terminalSafe(`${RED} ${ESC}[31mred${ESC}[39m`)).toBe(`${RED} \\x1b[31mred\\x1b[39m`)
    expect(terminalSafe(RED, {colour: false})).toBe(RED.replaceAll(ESC, '\\x1b'))
  })

  it('escapes exactly as the rule does, character by character', () => {
    fc.assert(
      fc.property(texts, options, (text, opts) => {
        expect(terminalSafe(text, opts)).toBe(byCharacter(text, opts, [RED, BOLD]))
      }),
      {numRuns: 2000},
    )
  })
})
