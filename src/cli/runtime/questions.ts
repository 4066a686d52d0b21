import {PayctlError} from '../../core/errors.js'
import type {Prompter, Validate} from './prompter.js'

/** The error for a value nobody can be asked for: it names the flag that gives it. */
export function missingFlag(flag: string): PayctlError {
  return new PayctlError({
    kind: 'usage',
    code: 'MISSING_FLAG',
    message: `missing required flag --${flag}`,
    details: {flag: `--${flag}`},
    suggestions: [`Pass --${flag}, or run in a terminal to be prompted.`],
  })
}

/**
 * A command's questions to a person: asked through the prompter where someone can answer (a
 * terminal, no --no-input, no CI, no --json), otherwise an error that names the flag to give, so
 * that every command also works without a person.
 */
export class Questions {
  readonly #prompter: Prompter
  readonly #interactive: () => boolean

  constructor(prompter: Prompter, interactive: () => boolean) {
    this.#prompter = prompter
    this.#interactive = interactive
  }

  /** Whether someone can answer. */
  get interactive(): boolean {
    return this.#interactive()
  }

  /**
   * Where nobody can answer, fail once naming every flag of `values` left out, rather than one per
   * run. (A single missing one is left to `ask`, which says the same.)
   */
  requireFlags(values: Record<string, unknown>): void {
    if (this.interactive) return
    const missing = Object.entries(values)
      .filter(([, v]) => v === undefined)
      .map(([k]) => `--${k}`)
    if (missing.length < 2) return
    throw new PayctlError({
      kind: 'usage',
      code: 'MISSING_FLAG',
      message: `missing required flags ${missing.join(', ')}`,
      details: {flags: missing},
      suggestions: [`Pass ${missing.join(', ')}, or run in a terminal to be prompted.`],
    })
  }

  /** Ask for a value, or fail naming the flag when nobody can answer. */
  async ask(
    flag: string,
    message: string,
    opts: {secret?: boolean; default?: string; validate?: (v: string) => true | string} = {},
  ): Promise<string> {
    if (!this.interactive) throw missingFlag(flag)
    const validate: Validate = (v) =>
      v.trim() === '' ? `${message} is required` : (opts.validate?.(v) ?? true)
    if (opts.secret) return this.#prompter.password(message, validate)
    return this.#prompter.input(message, opts.default, validate)
  }

  /** One of `choices`, or fail naming the flag when nobody can answer. */
  async choose<T>(flag: string, message: string, choices: {name: string; value: T}[]): Promise<T> {
    if (!this.interactive) throw missingFlag(flag)
    return this.#prompter.select(message, choices)
  }

  /** Ask a yes/no question (default no); "no" cancels the command with exit 2. */
  async confirm(message: string): Promise<void> {
    const ok = await this.#prompter.confirm(message, false)
    if (!ok) throw new PayctlError({kind: 'usage', code: 'CANCELLED', message: 'cancelled'})
  }
}
