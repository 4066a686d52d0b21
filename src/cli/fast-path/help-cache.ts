import {existsSync, readdirSync, rmSync} from 'node:fs'
import {join} from 'node:path'
import {configDirProblem, privateSubdir, readOwnFile, writePrivateFile} from '../../core/config-dir.js'
import type {Env} from '../runtime/io.js'

/**
 * Help printed from a rendering an earlier run kept, so that `payctl --help` and topic help need
 * not load oclif. A rendering is kept under the config dir, in `cache/help/<build>/`, one file per
 * help text, and it is served only where oclif would print the very same text:
 *
 * - for the same argument list, word for word (`wallets --help` and `help wallets` are kept
 *   apart), and only one that asks for help: `--help` or `help` alone or after a topic or command,
 *   no arguments at all, or a topic alone;
 * - by the same build of payctl (a new build keeps its renderings in a folder of its own, and
 *   removes the others' when it writes one);
 * - to the same terminal width (oclif's: OCLIF_COLUMNS, else the terminal's, else 80 when piped)
 *   and for the same colour setting: stdout a terminal or not, and every variable that oclif's
 *   colour detection or its ordering of commands reads (FORCE_COLOR, NO_COLOR, TERM, CI, LANG…);
 * - never while a `theme.json` in the config dir styles oclif's help.
 *
 * The file names the argument list and the settings it was rendered for on its first line, and a
 * rendering is served only when that line is the one asked for. Files are written 0600 into
 * folders made 0700, as everything in the config dir, and read only as regular files of a config
 * dir that others cannot write.
 */

/** Where one help text is kept, and the line that says what it was rendered for. */
export interface HelpSlot {
  configDir: string
  /** The build, which names the folder of its renderings. */
  build: string
  /** The file's name in that folder. */
  name: string
  /** The argument list and settings, as one line. */
  key: string
}

/** The command ids (`wallets:get`) and topics (`wallets`, `bnpl:payments`) help can be asked for. */
export interface HelpTargets {
  commands: ReadonlySet<string>
  topics: ReadonlySet<string>
}

// What the colour detection of oclif's help (ansis) and Node's choice of locale read.
const COLOUR_AND_LOCALE = [
  'FORCE_COLOR',
  'NO_COLOR',
  'NODE_DISABLE_COLORS',
  'TERM',
  'COLORTERM',
  'CI',
  'TF_BUILD',
  'PM2_HOME',
  'pm_id',
  'NEXT_RUNTIME',
  'LC_ALL',
  'LC_MESSAGES',
  'LANG',
  'LANGUAGE',
]

/** Whether `argv` asks for help, as oclif reads it: which topic or command, or the root. */
export function helpAsked(argv: readonly string[], targets: HelpTargets): boolean {
  const id = (words: readonly string[]) => words.join(':')
  const known = (words: readonly string[]) =>
    words.length > 0 && (targets.commands.has(id(words)) || targets.topics.has(id(words)))
  if (argv.length === 0) return true
  if (argv.length === 1 && (argv[0] === '--help' || argv[0] === 'help')) return true
  if (argv[0] === 'help') return known(argv.slice(1))
  if (argv.at(-1) === '--help') return known(argv.slice(0, -1))
  // A topic that is no command shows its help.
  return targets.topics.has(id(argv)) && !targets.commands.has(id(argv))
}

/** oclif's help width: OCLIF_COLUMNS, else a terminal's (40 at least), else 80. */
function helpWidth(env: Env, stdout: {isTTY: boolean; columns: number | undefined}): number {
  const set = Number.parseInt(env.OCLIF_COLUMNS ?? '', 10)
  if (set) return set
  if (!stdout.isTTY || !stdout.columns || stdout.columns < 1) return 80
  return Math.max(40, stdout.columns)
}

/**
 * The slot of `argv`'s help for this build and these settings, or undefined where no rendering may
 * be kept: not a help request, a theme in the config dir, a config dir others can write.
 */
export function helpSlot(
  argv: readonly string[],
  opts: {
    build: string
    /** What else the text depends on (fast-start.ts): the package's files, the Node that runs it. */
    stamp: string
    configDir: string
    env: Env
    stdout: {isTTY: boolean; columns: number | undefined}
    targets: HelpTargets
  },
): HelpSlot | undefined {
  if (!helpAsked(argv, opts.targets)) return undefined
  if (configDirProblem(opts.configDir) !== undefined) return undefined
  if (existsSync(join(opts.configDir, 'theme.json'))) return undefined
  const env = Object.keys(opts.env)
    .filter((n) => COLOUR_AND_LOCALE.includes(n) || /^(TEAMCI|GITHUB|GITEA)/.test(n))
    .sort()
    .map((n) => [n, opts.env[n]])
  const key = JSON.stringify({
    argv,
    stamp: opts.stamp,
    width: helpWidth(opts.env, opts.stdout),
    tty: opts.stdout.isTTY,
    env,
  })
  return {configDir: opts.configDir, build: opts.build, name: `${fnv1a(key)}.txt`, key}
}

/** The help kept in `slot`, if it was rendered for exactly what the slot is for. */
export function readHelp(slot: HelpSlot): string | undefined {
  let text: string | undefined
  try {
    text = readOwnFile(join(slot.configDir, 'cache', 'help', slot.build, slot.name))
  } catch {
    return undefined
  }
  if (text === undefined) return undefined
  const newline = text.indexOf('\n')
  return newline !== -1 && text.slice(0, newline) === slot.key ? text.slice(newline + 1) : undefined
}

/** Keep `help` in `slot`, and drop what other builds kept. */
export function writeHelp(slot: HelpSlot, help: string): void {
  const all = privateSubdir(privateSubdir(slot.configDir, 'cache'), 'help')
  for (const other of readdirSync(all)) {
    if (other !== slot.build) rmSync(join(all, other), {recursive: true, force: true})
  }
  writePrivateFile(join(privateSubdir(all, slot.build), slot.name), `${slot.key}\n${help}`)
}

/** A 64-bit FNV-1a of `text`, in hex: a file name, not a check (the key line is the check). */
function fnv1a(text: string): string {
  let hash = 0xcbf29ce484222325n
  for (let i = 0; i < text.length; i++) {
    hash ^= BigInt(text.charCodeAt(i))
    hash = (hash * 0x100000001b3n) & 0xffffffffffffffffn
  }
  return hash.toString(16).padStart(16, '0')
}
