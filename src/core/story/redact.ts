import {createHmac, randomBytes} from 'node:crypto'
import {mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

/**
 * The redaction of a customer's data on its way into a sandbox (docs/investigations.md#what-is-redacted):
 * emails become `user-<hash>@example.test`, names deterministic fake names, external ids and
 * metadata values hashes (but the keys kept with `--keep-metadata`), card and bank numbers their
 * last four digits at most, and every other text has the customer's email, names and external id
 * replaced where it quotes them.
 *
 * The hash is an HMAC keyed by `redaction.key` in the config dir, made once (0600): the same
 * customer is redacted alike on every import from this machine, so a fixture made again differs only
 * where the story did, and two imports can be joined; and a redacted file shared or committed cannot
 * be checked against a guessed email without the key, as a plain or fixed-salt hash could be.
 */

const FIRST = [
  'Alex',
  'Blake',
  'Casey',
  'Devon',
  'Emery',
  'Finley',
  'Harper',
  'Indigo',
  'Jordan',
  'Kai',
  'Logan',
  'Morgan',
  'Noel',
  'Oakley',
  'Parker',
  'Quinn',
  'Reese',
  'Sage',
  'Taylor',
  'Rowan',
  'Avery',
  'Wren',
  'Skyler',
  'Remy',
]
const LAST = [
  'Ashdown',
  'Birchley',
  'Carrow',
  'Dunmore',
  'Elsworth',
  'Fairbank',
  'Greyson',
  'Holloway',
  'Ingram',
  'Jessop',
  'Kestrel',
  'Lindqvist',
  'Marlow',
  'Northcott',
  'Orwell',
  'Pemberton',
  'Quarry',
  'Redfern',
  'Stroud',
  'Thorne',
]

/** The key the hashes are made with: kept in the config dir, made on first use. */
export function redactionKey(configDir: string): Buffer {
  const path = join(configDir, 'redaction.key')
  try {
    return Buffer.from(readFileSync(path, 'utf8').trim(), 'hex')
  } catch {
    mkdirSync(configDir, {recursive: true, mode: 0o700})
    const key = randomBytes(32)
    try {
      writeFileSync(path, `${key.toString('hex')}\n`, {mode: 0o600, flag: 'wx'})
      return key
    } catch {
      // Another import made it meanwhile: its key is the one.
      return Buffer.from(readFileSync(path, 'utf8').trim(), 'hex')
    }
  }
}

/** A person's data as the service shows it, to be found in free text. */
export interface Person {
  email?: string | undefined
  firstName?: string | undefined
  lastName?: string | undefined
  externalId?: string | undefined
}

/** A URL in free text: its user, path and query may carry a credential or a customer's data. */
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s)"'<>]+/gi
const EMAIL_IN_TEXT = /[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g
/** An email this redaction made: left as it is. */
const REDACTED_EMAIL = /^user-[0-9a-f]{10}@example\.test$/
/** Not across dots: an address (`192.168.100.200`) or an amount is not a number to hide. */
const LONG_NUMBER = /\b\d(?:[ ()/-]{0,2}\d){7,}\b/g

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

export class Redactor {
  readonly #key: Buffer
  readonly #keep: ReadonlySet<string>
  /** What free text may quote, longest first, and what replaces it. */
  #quotes: [RegExp, string][] = []

  constructor(key: Buffer, keepMetadata: readonly string[] = []) {
    this.#key = key
    this.#keep = new Set(keepMetadata)
  }

  /** A hash of `value`, `length` hex characters. */
  hash(value: string, length = 10): string {
    return createHmac('sha256', this.#key).update(value).digest('hex').slice(0, length)
  }

  email(value: string): string {
    return `user-${this.hash(value.trim().toLowerCase())}@example.test`
  }

  /** A fake first and last name, the same for the same person (named by their id or email). */
  name(of: string): {first: string; last: string} {
    const h = createHmac('sha256', this.#key).update(`name:${of}`).digest()
    return {first: FIRST[h[0]! % FIRST.length]!, last: LAST[h[1]! % LAST.length]!}
  }

  externalId(value: string): string {
    return `ext-${this.hash(`ext:${value}`)}`
  }

  /** Metadata: each value hashed, but those of the keys kept. */
  metadata(meta: Record<string, unknown>): Record<string, string> {
    const out: Record<string, string> = {}
    for (const [k, v] of Object.entries(meta)) {
      const text = typeof v === 'string' ? v : JSON.stringify(v)
      out[k] = this.#keep.has(k) ? this.text(text) : `h-${this.hash(`meta:${text}`)}`
    }
    return out
  }

  /** A URL as a delivery went to it: its origin only (a path or query may carry a token). */
  url(value: string | null): string | null {
    if (value === null) return null
    try {
      return new URL(value).origin
    } catch {
      return null
    }
  }

  /** Remember a person whose email, names and external id free text must not quote. */
  person(p: Person, redacted: Person): void {
    const pairs: [string | undefined, string | undefined][] = [
      [p.email, redacted.email],
      [p.externalId, redacted.externalId],
      [p.firstName, redacted.firstName],
      [p.lastName, redacted.lastName],
    ]
    for (const [from, to] of pairs) {
      // A one-letter name cannot be told from a letter of other text.
      if (from === undefined || to === undefined || from.trim().length < 2) continue
      this.#quotes.push([new RegExp(`(?<![\\w@.-])${escapeRegExp(from.trim())}(?![\\w@-])`, 'giu'), to])
    }
    this.#quotes.sort((a, b) => b[0].source.length - a[0].source.length)
  }

  /**
   * Free text: a URL it quotes cut to its origin, every email redacted (anyone's: a note may name
   * another person), what it quotes of the person replaced, and long numbers cut to their last four
   * digits.
   */
  text(value: string): string {
    let out = value.replace(URL_IN_TEXT, (url) => {
      try {
        const {origin} = new URL(url)
        return origin === 'null' ? '[url]' : `${origin}${/^[a-z]+:\/\/[^/?#]*[/?#]./i.test(url) ? '/…' : ''}`
      } catch {
        return '[url]'
      }
    })
    out = out.replace(EMAIL_IN_TEXT, (email) => (REDACTED_EMAIL.test(email) ? email : this.email(email)))
    for (const [pattern, to] of this.#quotes) out = out.replace(pattern, to)
    // A card, bank or phone number (8 digits or more, spaced, dashed or bracketed): its last four only.
    return out.replace(LONG_NUMBER, (digits) => `••••${digits.replace(/\D/g, '').slice(-4)}`)
  }
}
