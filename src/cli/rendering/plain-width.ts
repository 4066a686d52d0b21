/**
 * The width of plain text, as string-width (which cli-table3 measures every cell with) counts it,
 * without string-width's emoji expression: compiling that expression, on the first table of a
 * process, cost a one-call command more than laying out its table. The bundle gives cli-table3 a
 * string-width that asks here first and asks the real one only for other text
 * (scripts/bundle-table.ts); test/processes/plain-width.test.ts holds the two to the same answers.
 *
 * Plain text is printable ASCII, the ellipsis cli-table3 measures as its truncation mark, and SGR
 * sequences (colour and weight: `ESC [ 1 ; 31 m`, each number at most four digits). For it,
 * string-width's answer is the number of characters once the sequences are stripped: it strips
 * exactly those sequences (its ansi-regex takes each whole, and nothing else starts with ESC),
 * every character left is one column wide, and its emoji expression matches none of them (where
 * that expression takes an ASCII character, `#`, `*` or a digit, it wants U+FE0F or U+20E3 after).
 */

const PLAIN = /^[\x20-\x7e\u2026]*$/
// biome-ignore lint/suspicious/noControlCharactersInRegex: ESC starts the sequences it takes
const PLAIN_WITH_SGR = /^(?:[\x20-\x7e\u2026]|\x1b\[(?:\d{1,4}(?:;\d{1,4})*)?m)*$/
// biome-ignore lint/suspicious/noControlCharactersInRegex: ESC starts the sequences it strips
const SGR = /\x1b\[[\d;]*m/g

/** The columns `text` takes, as string-width says, when it is plain text; otherwise undefined. */
export function plainWidth(text: unknown): number | undefined {
  if (typeof text !== 'string') return undefined
  if (PLAIN.test(text)) return text.length
  if (PLAIN_WITH_SGR.test(text)) return text.replace(SGR, '').length
  return undefined
}
