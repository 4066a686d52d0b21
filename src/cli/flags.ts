import {Flags} from '@oclif/core'
import {SUPPORTED_CURRENCIES} from '../contract/index.js'

/** Flags every command takes. */
export const globalFlags = {
  profile: Flags.string({
    char: 'p',
    summary: 'profile to act on (default: PAYCTL_PROFILE, then the current profile)',
    helpGroup: 'GLOBAL',
  }),
  debug: Flags.boolean({
    summary: 'log every request and response to stderr, secrets redacted',
    helpGroup: 'GLOBAL',
  }),
  'no-input': Flags.boolean({
    summary: 'never prompt; a missing value is an error (also when stdin is not a TTY or CI is set)',
    helpGroup: 'GLOBAL',
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
    parse: async (value) => value.toUpperCase(),
    helpValue: SUPPORTED_CURRENCIES.slice(0, 3).join('|') + '|…',
  })

export const idempotencyKeyFlag = Flags.string({
  summary: 'idempotency key for this request (default: a new random key, reused by retries)',
})
