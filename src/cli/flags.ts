import {Flags} from '@oclif/core'
import {IDEMPOTENCY_KEY, SUPPORTED_CURRENCIES} from '../contract/index.js'
import {TIMELINE_KINDS} from '../contract/timeline/lines.js'
import {usageError} from '../core/errors.js'
import {checkProfileName} from '../core/profiles.js'
import {OUTPUT_FORMATS} from './rendering/list-output.js'

/** Flags every command takes. */
export const globalFlags = {
  profile: Flags.string({
    char: 'p',
    summary: 'profile to act on (default: PAYCTL_PROFILE, then the current profile)',
    helpGroup: 'GLOBAL',
    // An empty value would otherwise mean "the current profile", which a script's unset variable
    // must not silently pick.
    parse: async (value) => checkProfileName(value),
  }),
  debug: Flags.boolean({
    summary: 'log every request and response to stderr, secrets redacted',
    helpGroup: 'GLOBAL',
  }),
  'no-input': Flags.boolean({
    summary: 'never prompt; a missing value is an error (also when stdin is not a TTY or CI is set)',
    helpGroup: 'GLOBAL',
  }),
  jq: Flags.string({
    summary: 'filter the JSON output with a jq expression, e.g. .id (implies --json; strings print raw)',
    helpGroup: 'GLOBAL',
    helpValue: 'EXPR',
  }),
}

/** For commands that change state: skips the production confirmation. */
export const yesFlag = Flags.boolean({
  char: 'y',
  summary: 'do not ask for confirmation (required against production without a TTY)',
})

export const currencyFlag = (opts: {required?: boolean} = {}) =>
  Flags.string({
    summary: 'currency code, e.g. USD, EUR, BTC',
    required: opts.required ?? false,
    // A PayctlError, so that an unknown code is a usage error (exit 2), like a malformed amount.
    parse: async (value) => {
      const code = value.trim().toUpperCase()
      if (!(SUPPORTED_CURRENCIES as readonly string[]).includes(code))
        throw usageError(
          `--currency must be one of ${SUPPORTED_CURRENCIES.join(', ')}; got "${value}"`,
          'INVALID_CURRENCY',
          {flag: '--currency', value, supported: SUPPORTED_CURRENCIES},
        )
      return code
    },
    helpValue: SUPPORTED_CURRENCIES.slice(0, 3).join('|') + '|…',
  })

export const idempotencyKeyFlag = Flags.string({
  summary: 'idempotency key for this request (default: a new random key, reused by retries)',
  // What the service takes: other characters would fail inside the HTTP client, and a longer key at
  // the service, rather than here.
  parse: async (value) => {
    if (!IDEMPOTENCY_KEY.test(value))
      throw usageError(
        `--idempotency-key must be 1 to 255 printable ASCII characters, got "${value}"`,
        'INVALID_FLAG',
        {
          flag: '--idempotency-key',
        },
      )
    return value
  },
})

export const amountFlag = (
  summary = 'amount with its currency (12.34USD), or the smallest unit (1234) with --currency',
) => Flags.string({char: 'a', summary})

export const decimalFlag = Flags.boolean({
  summary: 'read --amount in major units of --currency (12.34 = 12.34 USD)',
})

/**
 * The --amount, --currency and --decimal of a command that moves or checks money; moneyFrom
 * (amounts.ts) reads them under the one rule for a currency.
 */
export const moneyFlags = (amountSummary?: string) => ({
  amount: amountFlag(amountSummary),
  currency: currencyFlag(),
  decimal: decimalFlag,
})

/** `key=value` pairs from a repeatable flag, as an object. */
export const metadataFlag = Flags.string({
  summary: 'metadata as key=value (repeatable)',
  multiple: true,
  parse: async (value) => {
    // A PayctlError, so that the failure is a usage error (exit 2), not UNEXPECTED (exit 1).
    if (!/^[^=]+=/.test(value))
      throw usageError(`--metadata wants key=value, got "${value}"`, 'INVALID_FLAG', {flag: '--metadata'})
    return value
  },
})

export function metadataFrom(pairs: string[] | undefined): Record<string, string> | undefined {
  if (!pairs || pairs.length === 0) return undefined
  return Object.fromEntries(pairs.map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)]))
}

/** Flags of every command that shows a list. */
export const outputFlags = {
  output: Flags.option({options: OUTPUT_FORMATS, char: 'o'})({summary: 'output format (default: table)'}),
  columns: Flags.string({summary: 'comma-separated columns for table and csv output', aliases: ['fields']}),
  wide: Flags.boolean({summary: 'show every column of a table, however wide the terminal'}),
}

/** For a command whose output goes through the pager in a terminal (docs/output.md). */
export const pagerFlag = {
  'no-pager': Flags.boolean({
    summary: 'print straight to the terminal, not through the pager (PAYCTL_PAGER, PAGER, else less -FRX)',
  }),
}

/** Flags of every list command that pages through the service. */
export const listFlags = {
  limit: Flags.integer({summary: 'show at most this many (default: one page of 20)', min: 1}),
  all: Flags.boolean({summary: 'follow every page to the end, streaming as pages arrive'}),
  cursor: Flags.string({summary: 'start after this cursor (from a previous page)'}),
  ...outputFlags,
}

/**
 * What `--since` and `--until` take, and what they send: a duration back from the service's now
 * (`24h`, `7d`: sent as it is, so that the service counts it on its own clock, the sandbox's
 * partner clock included), an instant with its zone (`2026-12-10T20:14Z`), or a date, which means
 * that day where the person at the terminal is, as `git log --since` reads one: `--since` from its
 * first moment, `--until` through its last (up to the next midnight).
 */
const DURATION = /^\d{1,6}[smhdw]$/
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/

export function timeBound(flag: 'since' | 'until', value: string): string {
  const text = value.trim()
  if (DURATION.test(text)) return text
  const date = DATE.exec(text)
  if (date !== null) {
    const [y, m, d] = [Number(date[1]), Number(date[2]), Number(date[3])]
    const midnight = new Date(y, m - 1, flag === 'until' ? d + 1 : d)
    const valid = new Date(y, m - 1, d)
    if (valid.getFullYear() === y && valid.getMonth() === m - 1 && valid.getDate() === d)
      return midnight.toISOString()
  } else if (INSTANT.test(text) && Number.isFinite(Date.parse(text))) {
    return new Date(Date.parse(text)).toISOString()
  }
  throw usageError(
    `--${flag} takes a duration back from now (30m, 24h, 7d, 2w), a date (2026-11-20) or an instant with its zone (2026-11-20T14:05Z); got "${value}"`,
    'INVALID_FLAG',
    {flag: `--${flag}`, value},
  )
}

/** `--since` and `--until` of a list bounded in time (timeBound says what they take). */
export const timeFlags = {
  since: Flags.string({
    summary: 'only what happened at or after this: 24h, 7d, 2026-11-20 (your midnight), or an instant',
    parse: async (value) => timeBound('since', value),
  }),
  until: Flags.string({
    summary: 'only what happened before this: 1h, 2026-11-20 (through that day), or an instant',
    parse: async (value) => timeBound('until', value),
  }),
}

/** Flags of `users inspect` and `wallets inspect`: the window, the kinds of line, the order and the form. */
export const inspectFlags = {
  since: Flags.string({
    summary: 'from this on (default 30d): 24h, 7d, 2026-11-20 (your midnight), or an instant',
    parse: async (value) => timeBound('since', value),
  }),
  until: timeFlags.until,
  kind: Flags.option({options: TIMELINE_KINDS, multiple: true, multipleNonGreedy: true, delimiter: ','})({
    summary: 'only lines of these kinds (repeatable, or comma-separated)',
  }),
  events: Flags.boolean({
    summary:
      'the webhook events as lines of their own (without it, each line of money says how the webhooks about it fared)',
  }),
  'oldest-first': Flags.boolean({summary: 'oldest line first (reads the whole window before printing)'}),
  utc: Flags.boolean({summary: "times in UTC, not this terminal's time zone"}),
  output: Flags.option({options: ['table', 'json', 'ndjson'] as const, char: 'o'})({
    summary: 'output format (default: table); json and ndjson give the merged records with their source ids',
  }),
  wide: outputFlags.wide,
}
