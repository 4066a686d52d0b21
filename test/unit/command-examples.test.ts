import {readdirSync, readFileSync} from 'node:fs'
import {join, relative} from 'node:path'
import {isStringLiteralLikeNode, type Node, SyntaxKind} from 'typescript/unstable/ast'
import {describe, expect, it} from 'vitest'
import {commandsFromSource, ROOT} from '../helpers/cli.js'
import {readSources} from '../helpers/typescript.js'

/**
 * Every hint names a flag the command has: a suggestion (`Try: payctl auth login --env local`), a
 * note (`--wide shows all`) or an example that names a flag its command does not take sends the
 * reader to `Nonexistent flag`. Walked statically over every text of the CLI and the core, against
 * the commands' flags as oclif reads them from src/ (what the build's manifest lists).
 */

const commands = new Map((await commandsFromSource()).map((c) => [c.id, c]))
/** A command's flags as typed: `--enabled` and, where it may be turned off, `--no-enabled`. */
const flagsOf = (id: string) =>
  new Set(
    Object.entries(commands.get(id)?.flags ?? {}).flatMap(([name, f]) =>
      (f as {allowNo?: boolean}).allowNo === true ? [name, `no-${name}`] : [name],
    ),
  )
const ids = [...commands.keys()]

/** The texts of the files: string literals, and template strings with each `${…}` read as `X`. */
function texts(files: Record<string, string>): Promise<{path: string; text: string}[]> {
  const parts = [SyntaxKind.TemplateHead, SyntaxKind.TemplateMiddle, SyntaxKind.TemplateTail]
  return readSources(files, (path, source) => {
    const found: {path: string; text: string}[] = []
    const visit = (node: Node): void => {
      if (isStringLiteralLikeNode(node) && !parts.includes(node.kind)) found.push({path, text: node.text})
      if (node.kind === SyntaxKind.TemplateExpression) {
        const t = node as unknown as {head: {text: string}; templateSpans: {literal: {text: string}}[]}
        found.push({
          path,
          text: t.head.text + t.templateSpans.map((span) => `X${span.literal.text}`).join(''),
        })
      }
      node.forEachChild(visit)
    }
    visit(source)
    return found
  })
}

function sources(folder: string): Record<string, string> {
  const files: Record<string, string> = {}
  for (const entry of readdirSync(join(ROOT, folder), {recursive: true, withFileTypes: true})) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue
    const path = relative(ROOT, join(entry.parentPath, entry.name))
    files[path] = readFileSync(join(ROOT, path), 'utf8')
  }
  return files
}

/** The command a file defines: src/commands/bnpl/payments/get.ts is `bnpl:payments:get`. */
const commandOf = (path: string) =>
  path.startsWith('src/commands/')
    ? path.slice('src/commands/'.length, -'.ts'.length).replaceAll('/', ':')
    : undefined

/** The longest command id that `words` (after `payctl`) begin with. */
function commandNamed(words: string[]): string | undefined {
  for (let n = Math.min(words.length, 3); n > 0; n--) {
    const id = words.slice(0, n).join(':')
    if (ids.includes(id)) return id
  }
  return undefined
}

/** A flag as typed (`--limit-*` names a family of flags, none of which is `--limit`). */
const FLAG = /(?<![\w-])--([a-z][a-z0-9]*(?:-[a-z0-9]+)*)(?![\w*-])/g

/** Every `payctl <command> … --flag` a text names: the command and its flags, up to the end of the line or sentence. */
function commandsNamed(text: string): {id: string | undefined; words: string; flags: string[]}[] {
  return [...text.matchAll(/payctl ((?:[a-z][a-z-]* ?){1,3})([^\n;,)`'"]*)/g)].map((m) => {
    const words = m[1]!.trim().split(' ')
    return {id: commandNamed(words), words: m[1]!.trim(), flags: [...m[2]!.matchAll(FLAG)].map((f) => f[1]!)}
  })
}

describe('every hint names a flag the command has', () => {
  const all = {...sources('src/commands'), ...sources('src/cli'), ...sources('src/core')}

  it('a command that a text tells to run takes the flags it is told with', async () => {
    const wrong: string[] = []
    let checked = 0
    for (const {path, text} of await texts(all)) {
      for (const named of commandsNamed(text)) {
        if (named.id === undefined) continue
        const flags = flagsOf(named.id)
        for (const flag of named.flags) {
          checked++
          if (!flags.has(flag))
            wrong.push(`${path}: "payctl ${named.words} … --${flag}": ${named.id} has no --${flag}`)
        }
      }
    }
    expect(wrong).toEqual([])
    expect(checked).toBeGreaterThan(10)
  })

  it("a command's own texts (hints, notes and examples) name only its own flags", async () => {
    const commands = Object.fromEntries(Object.entries(all).filter(([path]) => commandOf(path) !== undefined))
    const wrong: string[] = []
    for (const {path, text} of await texts(commands)) {
      // What follows `payctl <another command>` is checked against that command, above.
      const own = text.replace(/payctl (?!<%)[^\n;,)`'"]*/g, '')
      const flags = flagsOf(commandOf(path)!)
      for (const [, flag] of own.matchAll(FLAG)) {
        if (!flags.has(flag!)) wrong.push(`${path}: "${text.slice(0, 80)}" names --${flag}`)
      }
    }
    expect(wrong).toEqual([])
  })

  it('the shared notes name a flag only where the command has it (checked by the printer)', async () => {
    const printer = readFileSync(join(ROOT, 'src/cli/rendering/printer.ts'), 'utf8')
    for (const flag of ['wide', 'cursor', 'all']) expect(printer).toContain(`#has('${flag}')`)
  })
})
