import {readdirSync, readFileSync} from 'node:fs'
import {join, relative} from 'node:path'
import {isFunctionLikeDeclaration, type Node} from 'typescript/unstable/ast'
import {describe, expect, it} from 'vitest'
import {ROOT} from '../helpers/cli.js'
import {readSources} from '../helpers/typescript.js'

/** The source files of `folders`, by path relative to the repository root. */
function sourceFiles(folders: readonly string[]): Record<string, string> {
  const files: Record<string, string> = {}
  for (const folder of folders) {
    for (const entry of readdirSync(join(ROOT, folder), {recursive: true, withFileTypes: true})) {
      if (!entry.isFile() || !entry.name.endsWith('.ts')) continue
      const path = relative(ROOT, join(entry.parentPath, entry.name))
      files[path] = readFileSync(join(ROOT, path), 'utf8')
    }
  }
  return files
}

/** The CLI's own source: src/cli and src/commands. */
const cliFiles = () => sourceFiles(['src/cli', 'src/commands'])

/** Where a file reaches the process around the runtime given to each command (src/cli/runtime/runtime.ts). */
function processReaches(
  files: Record<string, string>,
  pattern: RegExp,
  allowed: readonly string[],
): string[] {
  const found: string[] = []
  for (const [path, text] of Object.entries(files)) {
    if (allowed.includes(path)) continue
    text.split('\n').forEach((line, i) => {
      if (pattern.test(line)) found.push(`${path}:${i + 1}: ${line.trim()}`)
    })
  }
  return found
}

describe('the CLI reaches the process only through its runtime', () => {
  const files = cliFiles()

  it('writes to and reads the standard streams only in io.ts', () => {
    expect(processReaches(files, /process\.(stdout|stderr|stdin)\b/, ['src/cli/runtime/io.ts'])).toEqual([])
  })

  it('reads the environment, exit code and signals only in the runtime', () => {
    const allowed = [
      'src/cli/runtime/io.ts',
      'src/cli/runtime/runtime.ts',
      // The descriptor of the process's own IPC channel, which the background sandbox must not inherit.
      'src/cli/local-sandbox/sandbox-process.ts',
    ]
    expect(processReaches(files, /process\.(env|exitCode|on|once|off)\b/, allowed)).toEqual([])
    // main.ts ends the process whose stdout went away; only a process's runtime ends its process.
    const exits = ['src/cli/runtime/runtime.ts', 'src/cli/main.ts']
    expect(processReaches(files, /process\.exit\(/, exits)).toEqual([])
  })

  it('asks for the time only through the clock, and the config dir only of the runtime', () => {
    expect(processReaches(files, /Date\.now\(\)|new Date\(\)/, ['src/cli/runtime/runtime.ts'])).toEqual([])
    expect(
      processReaches(files, /\bconfigDir\(/, [
        'src/cli/runtime/runtime.ts',
        'src/cli/local-sandbox/sandbox-process.ts',
      ]),
    ).toEqual([])
  })
})

/** A function's first line, last line and name, for a report. */
interface Span {
  path: string
  line: number
  lines: number
  reason: boolean
}

/** Every function, method, accessor and arrow function of the files, with its length in lines. */
function functionSpans(files: Record<string, string>): Promise<Span[]> {
  return readSources(files, (path, source) => {
    const spans: Span[] = []
    const visit = (node: Node): void => {
      if (isFunctionLikeDeclaration(node) && node.body !== undefined) {
        const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line
        const end = source.getLineAndCharacterOfPosition(node.end).line
        // The reason stands on the line above the function (or above its doc comment).
        const before = source.text.slice(node.pos, node.getStart(source))
        spans.push({path, line: start + 1, lines: end - start + 1, reason: /\/\/ Long: \S/.test(before)})
      }
      node.forEachChild(visit)
    }
    visit(source)
    return spans
  })
}

describe('the size of every source file and function', () => {
  const files = sourceFiles(['src'])

  it('keeps every file to 500 lines', () => {
    const long = Object.entries(files)
      .map(([path, text]) => `${path}: ${text.split('\n').length - 1} lines`)
      .filter((line) => Number(line.split(': ')[1]!.split(' ')[0]) > 500)
    expect(long).toEqual([])
  })

  it('keeps every function to 60 lines, or says why beside it (// Long: …)', async () => {
    const spans = await functionSpans(files)
    expect(spans.length).toBeGreaterThan(1000)
    const long = spans
      .filter((s) => s.lines > 60 && !s.reason)
      .map((s) => `${s.path}:${s.line}: ${s.lines} lines`)
    expect(long).toEqual([])
  })
})

describe('the house checks themselves', () => {
  it('find a long function, a long arrow function and a stray process.stdout, and take a reason', async () => {
    const body = Array.from({length: 60}, (_, i) => `  const x${i} = ${i}`).join('\n')
    const spans = await functionSpans({
      'src/cli/a.ts': `export function long() {\n${body}\n}\n`,
      'src/cli/b.ts': `export const long = () => {\n${body}\n}\n`,
      'src/cli/c.ts': `// Long: one table of cases, read top to bottom\nexport function long() {\n${body}\n}\n`,
    })
    expect(spans.map((s) => [s.path, s.lines, s.reason])).toEqual([
      ['src/cli/a.ts', 62, false],
      ['src/cli/b.ts', 62, false],
      ['src/cli/c.ts', 62, true],
    ])
    const files = {
      'src/cli/io.ts': 'process.stdout.write("")',
      'src/commands/x.ts': 'process.stderr.write("")',
    }
    expect(processReaches(files, /process\.(stdout|stderr|stdin)\b/, ['src/cli/io.ts'])).toEqual([
      'src/commands/x.ts:1: process.stderr.write("")',
    ])
  })
})
