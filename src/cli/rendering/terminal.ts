import {styleText} from 'node:util'
import type {Env, IOStreams} from '../runtime/io.js'
import {currentRuntime} from '../runtime/runtime.js'

type Style = Parameters<typeof styleText>[0]

/**
 * Colour for text bound for `out` (the run's stdout unless said): none where it takes none (not a
 * terminal, NO_COLOR; see colourWanted). Control characters in `text` are escaped (it is often a
 * value from the service); what paint returns is remembered, so that `terminalSafe` keeps its
 * colour codes and escapes every other.
 */
export function paint(style: Style, text: string, out: {colour: boolean} = currentRuntime().io.out): string {
  const safe = terminalSafe(text, {lines: true})
  if (!out.colour) return safe
  const painted = styleText(style, safe, {validateStream: false})
  remember(painted)
  return painted
}

// What paint produced, by its first escape sequence, then by length: colour codes payctl wrote
// itself, as opposed to ones that came in a value. Bounded; past the bound colours get escaped
// (visible, never harmful).
const painted = new Map<string, Map<number, Set<string>>>()
let paintedCount = 0
const ESC = String.fromCharCode(27)
const SGR = new RegExp(`${ESC}\\[[0-9;]*m`, 'y')

function remember(text: string): void {
  SGR.lastIndex = 0
  const first = SGR.exec(text)?.[0]
  if (first === undefined || paintedCount >= 100_000) return
  let byLength = painted.get(first)
  if (byLength === undefined) {
    byLength = new Map()
    painted.set(first, byLength)
  }
  let set = byLength.get(text.length)
  if (set === undefined) {
    set = new Set()
    byLength.set(text.length, set)
  }
  if (!set.has(text)) {
    set.add(text)
    paintedCount++
  }
}

/** The painted string that starts at `at` in `text`, if any (the longest). */
function paintedAt(text: string, at: number): string | undefined {
  SGR.lastIndex = at
  const first = SGR.exec(text)?.[0]
  const byLength = first === undefined ? undefined : painted.get(first)
  if (byLength === undefined) return undefined
  let found: string | undefined
  for (const [length, set] of byLength) {
    if ((found === undefined || length > found.length) && set.has(text.slice(at, at + length))) {
      found = text.slice(at, at + length)
    }
  }
  return found
}

// C0 controls (ESC, BEL, backspace, carriage return…), DEL, C1 controls (CSI, OSC… in their
// one-character forms) and every bidirectional control: marks, embeddings, overrides and isolates
// all make text read other than it is (an .exe passing for a .pdf). CONTROLS finds each in turn;
// CONTROL_NOT_LINE is CONTROL less newline and tab, which `lines` keeps.
const BEYOND_C0 = '\\u007f-\\u009f\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069'
const CONTROL = new RegExp(`[\\u0000-\\u001f${BEYOND_C0}]`)
const CONTROLS = new RegExp(CONTROL.source, 'g')
const CONTROL_NOT_LINE = new RegExp(`[\\u0000-\\u0008\\u000b-\\u001f${BEYOND_C0}]`)

/**
 * Text made safe to print to a terminal: every control character shown as an escape (`\x1b`,
 * `\x9b`, `\u202e`), so a value cannot clear the screen, set the window title, write the
 * clipboard (OSC 52) or turn itself around. The one escaping of every human output. Colour from
 * `paint` is kept unless `colour` is false (text that goes nowhere near paint, such as YAML);
 * `lines` keeps newlines and tabs.
 *
 * Every card and table goes through here whole, so it copies the text between control characters
 * in slices rather than character by character: text with none but newlines comes back as it is.
 */
export function terminalSafe(text: string, opts: {lines?: boolean; colour?: boolean} = {}): string {
  if (!(opts.lines ? CONTROL_NOT_LINE : CONTROL).test(text)) return text
  let out = ''
  let from = 0
  CONTROLS.lastIndex = 0
  for (let found = CONTROLS.exec(text); found !== null; found = CONTROLS.exec(text)) {
    const at = found.index
    const c = found[0]
    if (opts.lines && (c === '\n' || c === '\t')) continue
    out += text.slice(from, at)
    const kept = c === ESC && opts.colour !== false ? paintedAt(text, at) : undefined
    const code = c.charCodeAt(0)
    out +=
      kept ??
      (code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`)
    from = at + (kept?.length ?? 1)
    CONTROLS.lastIndex = from
  }
  return out + text.slice(from)
}

/** Whether a command may prompt: stdin is a TTY, CI is unset and the user did not say --no-input. */
export function canPrompt(io: IOStreams, env: Env, noInput: boolean): boolean {
  return io.in.isTTY && !noInput && !isCI(env)
}

export function isCI(env: Env): boolean {
  const ci = env.CI
  return ci !== undefined && ci !== '' && ci !== '0' && ci.toLowerCase() !== 'false'
}

export const STATUS_STYLES: Record<string, Style> = {
  active: 'green',
  completed: 'green',
  connected: 'green',
  disabled: 'gray',
  pending_verification: 'yellow',
  pending: 'yellow',
  processing: 'yellow',
  suspended: 'red',
  frozen: 'cyan',
  closed: 'gray',
  failed: 'red',
  reversed: 'magenta',
  refunded: 'magenta',
  cancelled: 'gray',
}
