/**
 * The shapes of the credentials the sandbox issues and accepts, and the one redaction every log
 * applies to them: payctl's --debug and audit logs, the sandbox's request log and its sandbox.log
 * (docs/sandbox.md#the-request-log). Written once here, beneath both, so that no log redacts less
 * than another.
 */

const KEY_CHAR = '[A-Za-z0-9_-]'

/**
 * A credential, wherever it stands in a text:
 * - a secret key or API secret (`test_…`, `live_…`, `sk_test_…`) that begins a word, at any
 *   length, since another platform's keys may be short;
 * - one inside a longer word (`wal_test_…`, `order_test_…`, and the sandbox's own `pk_test_…` API
 *   keys) from 16 characters after its `test_` on, the fewest a sandbox key may have: shorter
 *   words there are ordinary names (`olive_oil`);
 * - a webhook or listen signing secret (`whsec_…`), and a JWT (`eyJ….….…`), anywhere. A JWT's
 *   header is taken to be at most 512 characters long (the sandbox's has 36; `alg`, `typ` and
 *   `kid` take under 100): unbounded, each `eyJ` of a long word with no dot would be read to the
 *   word's end, and a 16 KiB path of them would hold the sandbox up for a quarter of a second.
 */
const CREDENTIAL = new RegExp(
  [
    `(?<!${KEY_CHAR})(?:sk_)?(?:test|live)_${KEY_CHAR}+`,
    `(?:test|live)_${KEY_CHAR}{16,}`,
    'whsec_[A-Za-z0-9+/=_-]+',
    `eyJ${KEY_CHAR}{1,512}\\.${KEY_CHAR}+\\.${KEY_CHAR}*`,
  ].join('|'),
  'g',
)

/** What a redacted credential keeps: its kind (`test_`, `sk_test_`, `whsec_`, `eyJ`). */
const KIND = /^(?:eyJ|whsec_|(?:sk_)?(?:test|live)_)/

const hidden = (credential: string) => `${KIND.exec(credential)?.[0] ?? ''}[REDACTED]`

/** A percent-escape of an ASCII character: every character of a credential is one. */
const ESCAPE = /%[0-7][0-9A-Fa-f]/
const ASCII_HEX = /^[0-7][0-9A-Fa-f]$/
/** Escapes of escapes (`%255F`) are read this many times over. */
const DECODE_ROUNDS = 3

/**
 * `text` with every credential in it replaced by its kind and `[REDACTED]`. A credential written
 * with percent-escapes (`test%5F…`, `%74est_…`, `test%255F…`) is found in the text as decoded, and
 * the characters it was written with are replaced; the rest of the text stays as it was written.
 */
export function redactCredentials(text: string): string {
  if (!ESCAPE.test(text)) {
    // Every credential but a JWT holds a `_`, and a JWT begins `eyJ`: most texts (a path, a UUID) have neither.
    if (!text.includes('_') && !text.includes('eyJ')) return text
    return text.replace(CREDENTIAL, hidden)
  }
  const decoded = unescaped(text)
  let out = ''
  let at = 0
  for (const match of decoded.text.matchAll(CREDENTIAL)) {
    const from = decoded.from[match.index] as number
    out += `${text.slice(at, from)}${hidden(match[0])}`
    at = decoded.to[match.index + match[0].length - 1] as number
  }
  return out + text.slice(at)
}

/**
 * `text` with its ASCII percent-escapes decoded, and for each character of the result where it
 * was written in `text`: `from` its first character, `to` just past its last.
 */
function unescaped(text: string): {text: string; from: number[]; to: number[]} {
  let chars = text
  let from = Array.from({length: text.length}, (_, i) => i)
  let to = from.map((i) => i + 1)
  for (let round = 0; round < DECODE_ROUNDS && ESCAPE.test(chars); round++) {
    let next = ''
    const nextFrom: number[] = []
    const nextTo: number[] = []
    for (let i = 0; i < chars.length; i++) {
      const hex = chars[i] === '%' ? chars.slice(i + 1, i + 3) : ''
      const last = ASCII_HEX.test(hex) ? i + 2 : i
      next += last === i ? chars[i] : String.fromCharCode(Number.parseInt(hex, 16))
      nextFrom.push(from[i] as number)
      nextTo.push(to[last] as number)
      i = last
    }
    chars = next
    from = nextFrom
    to = nextTo
  }
  return {text: chars, from, to}
}
