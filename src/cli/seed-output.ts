import {basename} from 'node:path'
import {type ResolvedProfile, usageError} from '../core/index.js'
import {
  type FileProgress,
  type Fixture,
  plan,
  registrations,
  type SeedProgress,
  type SeedResult,
} from '../core/seed/index.js'
import type {Printer} from './rendering/printer.js'
import {isCI} from './rendering/terminal.js'
import type {Env, OutputStream} from './runtime/io.js'

/** What `payctl seed` shows a person: its plan, its progress, what it made and how to resume it. */

/** --rate: requests a minute, or "off"; undefined when not given. */
export function seedRateFlag(flag: string | undefined): number | 'off' | undefined {
  if (flag === undefined || flag === 'off') return flag
  const n = Number(flag)
  if (!Number.isInteger(n) || n < 1)
    throw usageError(`--rate wants requests a minute or "off", got "${flag}"`, 'INVALID_FLAG')
  return n
}

/** The waves --dry-run would send, as a table; nothing is sent. */
export async function printPlan(
  out: Printer,
  fixtures: Fixture[],
  total: number,
): Promise<ReturnType<typeof plan>> {
  const steps = fixtures.flatMap((fixture) => plan(fixture))
  await out.table(steps, [
    {header: 'WAVE', get: (s) => String(s.wave + 1)},
    {header: 'KIND', get: (s) => s.kind},
    {header: 'COUNT', get: (s) => String(s.names.length)},
    {
      header: 'RECORDS',
      get: (s) =>
        s.names.length > 4 ? `${s.names.slice(0, 3).join(', ')}, … ${s.names.at(-1)}` : s.names.join(', '),
    },
  ])
  const waves = fixtures.reduce((n, x) => n + new Set(plan(x).map((s) => s.wave)).size, 0)
  out.log(`${total} records in ${waves} waves; nothing sent.`)
  return steps
}

/**
 * Progress on stderr, under --json too (stdout carries only the result): a bar redrawn in place
 * in a terminal; elsewhere (CI logs) a plain line every few seconds, and the last one. Each file of
 * several is named.
 */
export function seedProgress(
  stream: OutputStream,
  env: Env,
  paths: string[],
): (path: string) => FileProgress {
  return (path) => progressReporter(stream, env, paths.length > 1 ? basename(path) : undefined)
}

function progressReporter(stream: OutputStream, env: Env, label: string | undefined): FileProgress {
  const live = stream.columns !== undefined && !isCI(env)
  const what = label ? `Seeding ${label}` : 'Seeding'
  const figures = (p: SeedProgress) =>
    `${p.done}/${p.total}  ${p.ratePerSecond.toFixed(0)}/s  ETA ${p.etaSeconds === undefined ? '?' : `${Math.ceil(p.etaSeconds)}s`}`
  const bar = (p: SeedProgress) => {
    const text = figures(p)
    const width = Math.max(10, Math.min(40, (stream.columns ?? 80) - what.length - text.length - 6))
    const filled = Math.round((p.done / Math.max(p.total, 1)) * width)
    return `${what} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${text}`
  }
  let lastPrinted = 0
  return {
    update: (p) => {
      const now = performance.now()
      if (live) {
        if (now - lastPrinted > 100 || p.done === p.total) stream.write(`\r\x1b[2K${bar(p)}`)
        else return
      } else if (lastPrinted === 0 || now - lastPrinted > 3_000 || p.done === p.total)
        stream.write(`${what} ${figures(p)}\n`)
      else return
      lastPrinted = now
    },
    stop: () => {
      if (live && lastPrinted > 0) stream.write('\n')
    },
  }
}

/** The run as it was asked for, to say how to run it again. */
export interface SeedRun {
  bin: string
  /** The fixture files as given. */
  files: string[]
  profile: Pick<ResolvedProfile, 'name' | 'kind' | 'sources'>
  journal?: string | undefined
  /** --concurrency, where it is not the default. */
  concurrency?: number | undefined
  rate?: string | undefined
  output?: string | undefined
  json: boolean
  yes: boolean
  /** The --jq expression the run was given, repeated by the resume line. */
  jq?: string | undefined
}

/** What Ctrl-C leaves behind during a run of the fixtures at `paths`: how to resume, and the audit's note. */
export function interruptNote(run: SeedRun, paths: string[]): {text: string; audit: string} {
  return {
    text: resumeNote(run),
    audit: `interrupted while seeding ${paths.map((p) => basename(p)).join(', ')}; a rerun resumes`,
  }
}

/**
 * What to run to finish an interrupted run: the command that finds the same journals, which are
 * kept per fixture file (as resolved from this directory), profile, service and sandbox start. The
 * files as given, the flags that choose the journal or shape the result, and never --fresh, which
 * would forget what was made.
 */
function resumeNote(run: SeedRun): string {
  const words = [run.bin, 'seed', ...run.files]
  const source = run.profile.sources.profile
  if (source === 'flag' || source === 'env') words.push('--profile', run.profile.name)
  if (run.journal !== undefined) words.push('--journal', run.journal)
  if (run.concurrency !== undefined) words.push('--concurrency', String(run.concurrency))
  if (run.rate !== undefined) words.push('--rate', run.rate)
  if (run.output !== undefined) words.push('--output', run.output)
  if (run.jq !== undefined) words.push('--jq', run.jq)
  else if (run.json) words.push('--json')
  if (run.yes) words.push('--yes')
  const again = `The records created so far are kept; to resume where this run stopped, run:\n  ${words.map(shellWord).join(' ')}`
  return run.profile.kind === 'local'
    ? `${again}\nTo start over instead: ${run.bin} sandbox reset, then the same command with --fresh.`
    : again
}

/** A word as a POSIX shell reads it back: as it is when it can be, else in single quotes. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`
}

/** The line a finished run ends with. */
export function seededLine(o: {
  made: number
  skipped: number
  files: number
  seconds: number
  output?: string | undefined
}): string {
  const skippedNote = o.skipped ? ` (${o.skipped} already existed)` : ''
  const files = o.files > 1 ? ` from ${o.files} files` : ''
  return `✓ ${o.made} records created${files} in ${o.seconds.toFixed(1)} s${skippedNote}${o.output ? `; ids in ${o.output}` : ''}`
}

/** Registrations named one a line before the rest are counted. */
const NAMED_REGISTRATIONS = 5

/**
 * Where the signing secrets of a finished run's webhook registrations are, for a person (stderr;
 * nothing under --json, whose output holds them). A secret is given once, by the run that
 * registers it, and a human run prints none: it is in the --output file, or, where this run did
 * not write one (or had no secret to write: an earlier run made the registration), the command
 * that gives the registration a new one.
 */
export function secretNotes(result: SeedResult, output: string | undefined): string[] {
  const all = registrations(result)
  const kept = output === undefined ? [] : all.filter((r) => r.secret !== undefined)
  const missing = all.filter((r) => !kept.includes(r))
  const notes: string[] = []
  if (kept.length > 0)
    notes.push(
      `The signing secret of each webhook registration made is in ${output} (${kept[0]!.name}.secret${kept.length > 1 ? ', …' : ''}).`,
    )
  if (missing.length === 0) return notes
  notes.push(
    'A webhook signing secret is given once, in the --json output or --output file of the run that registers it; to give these a new one:',
  )
  for (const r of missing.slice(0, NAMED_REGISTRATIONS))
    notes.push(`  payctl webhooks rotate-secret ${r.id}   # ${r.name}`)
  if (missing.length > NAMED_REGISTRATIONS)
    notes.push(`  … and ${missing.length - NAMED_REGISTRATIONS} more (payctl webhooks list)`)
  return notes
}
