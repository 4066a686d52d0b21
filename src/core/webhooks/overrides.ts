import type {EventName} from '../../contract/events/envelope.js'
import {
  overrideFromText,
  overrideProblems,
  TRIGGER_OVERRIDES,
  type TriggerOverrideInput,
} from '../../contract/trigger-overrides.js'
import {PayctlError} from '../errors.js'

/** What the command line said of a trigger's records. */
export interface TriggerFlags {
  user?: string | undefined
  wallet?: string | undefined
  /** `field=value`, as typed. */
  set: readonly string[]
}

function refused(flag: string, message: string, details: Record<string, unknown> = {}): PayctlError {
  return new PayctlError({kind: 'usage', code: 'INVALID_OVERRIDE', message: `${flag}: ${message}`, details})
}

/**
 * A trigger's overrides from its flags, each value read as its field takes it and checked with the
 * rules the sandbox applies (TRIGGER_OVERRIDES), so that a mistake is a usage error naming the flag
 * before anything is sent. A decimal amount with its currency (`amount=50.00USD`) also sets the
 * currency when `currency` is not set.
 */
export function parseTriggerOverrides(event: EventName, flags: TriggerFlags): TriggerOverrideInput {
  const texts = new Map<string, string>()
  for (const pair of flags.set) {
    const eq = pair.indexOf('=')
    if (eq <= 0) throw refused(`--set ${pair}`, 'expected field=value, e.g. --set amount=5000')
    texts.set(pair.slice(0, eq).trim(), pair.slice(eq + 1))
  }
  const set: Record<string, unknown> = {}
  const named = texts.get('currency')
  if (named !== undefined) set.currency = named.trim().toUpperCase()
  for (const [name, text] of texts) {
    if (name === 'currency') continue
    try {
      const read = overrideFromText(event, name, text, named?.trim())
      set[name] = read.value
      if (
        read.currency !== undefined &&
        set.currency === undefined &&
        'currency' in TRIGGER_OVERRIDES[event].set
      )
        set.currency = read.currency
    } catch (err) {
      throw refused(`--set ${name}=${text}`, err instanceof Error ? err.message : String(err), {field: name})
    }
  }
  const input: TriggerOverrideInput = {
    ...(flags.user === undefined ? {} : {user: flags.user}),
    ...(flags.wallet === undefined ? {} : {wallet: flags.wallet}),
    ...(texts.size === 0 ? {} : {set}),
  }
  const [problem] = overrideProblems(event, input)
  if (problem !== undefined) {
    const [where, name] = problem.path
    const flag =
      where === 'set' ? `--set ${String(name)}=${texts.get(String(name)) ?? ''}` : `--${String(where)}`
    throw refused(flag, problem.message, {field: where === 'set' ? name : where})
  }
  return input
}
