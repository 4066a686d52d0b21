import {basename} from 'node:path'
import {PayctlError} from '../errors.js'

/** A place in a fixture file, 1-based. */
export interface Position {
  line: number
  col: number
}

/** One problem of a fixture file: where it is (when it has a place), and what is wrong. */
interface Problem {
  at: Position | undefined
  text: string
}

/** The most problems one error lists: past that, a count; the first hundred show what to fix. */
const SHOWN = 100

/**
 * The problems found in one fixture file, so that one run reports all of them rather than one a
 * run. A counted entry's records share their entry's place, so a problem they all have is kept once.
 */
export class Problems {
  readonly path: string
  readonly #list: Problem[] = []
  readonly #seen = new Set<string>()

  constructor(path: string) {
    this.path = path
  }

  get size(): number {
    return this.#list.length
  }

  /** Note a problem; `same` says which other problems are this one again (its text by default). */
  add(at: Position | undefined, text: string, same = text): void {
    const key = `${at?.line}:${at?.col}:${same}`
    if (this.#seen.has(key)) return
    this.#seen.add(key)
    // One problem, one line: a key or value quoted in it may span lines of the file.
    this.#list.push({at, text: text.replace(/\r?\n\s*/g, '\\n ')})
  }

  /** `FILE:LINE:COL: what is wrong`, in the order of the file; a stable sort keeps ties as found. */
  lines(): string[] {
    return this.#list
      .toSorted((a, b) => (a.at?.line ?? 0) - (b.at?.line ?? 0) || (a.at?.col ?? 0) - (b.at?.col ?? 0))
      .map((p) => (p.at === undefined ? p.text : `${this.path}:${p.at.line}:${p.at.col}: ${p.text}`))
  }
}

/**
 * The one error of fixtures that have problems: one problem as `FILE:LINE:COL: what is wrong`, as
 * a compiler says it; several under a line that counts them, one a line, each with its place.
 */
export function problemsError(found: Problems[]): PayctlError {
  const lines = found.flatMap((p) => p.lines())
  if (lines.length === 1) return fixtureError(lines[0]!)
  const files = found.filter((p) => p.size > 0).map((p) => basename(p.path))
  const shown = lines.slice(0, SHOWN).map((l) => `  ${l}`)
  if (lines.length > SHOWN) shown.push(`  … and ${lines.length - SHOWN} more`)
  return fixtureError(
    `${lines.length} problems in ${files.join(', ')}; nothing was sent:\n${shown.join('\n')}`,
  )
}

export function fixtureError(message: string): PayctlError {
  return new PayctlError({kind: 'usage', code: 'INVALID_FIXTURE', message})
}
