import {readdirSync, readFileSync} from 'node:fs'
import {join, posix} from 'node:path'
import {
  isCallExpression,
  isIdentifier,
  isStringLiteralLikeNode,
  type Node,
  SyntaxKind,
} from 'typescript/unstable/ast'
import {describe, expect, it} from 'vitest'
import {readSources} from '../helpers/typescript.js'

/**
 * The layers of src/ and what each may depend on:
 *
 *   contract  the zod schemas and the endpoint table; nothing of ours
 *   core      the HTTP client library (and src/index.ts, the package entry that re-exports it)
 *   sandbox   the local server
 *   cli       terminal helpers
 *   mcp       the Model Context Protocol server of `payctl mcp`, over the core
 *   commands  the oclif command files
 *   testing   payctl/testing: the sandbox started for a test suite, with the client to drive it
 *
 * Each may import only itself and the layers MAY_IMPORT lists; the one exception, LAZY, lets
 * `sandbox start` and `sandbox run` load the sandbox, and `mcp` the MCP server, through an `import()`
 * expression (never a static import).
 *
 * Every import counts, type-only ones too: `import type`, `export type … from` and `typeof import('…')`
 * are erased at run time, but they still make one folder depend on another, so a type the sandbox
 * needs from core is as much a break of the layers as a function would be.
 *
 * And no file imports itself through others, whatever the kind of the imports: files in a cycle can
 * be neither read, moved nor loaded one without the other, and a cycle of type-only imports or of
 * `import()` expressions ties them as much as static ones do.
 */
const MAY_IMPORT: Record<string, readonly string[]> = {
  contract: ['contract'],
  core: ['core', 'contract'],
  sandbox: ['sandbox', 'contract'],
  cli: ['cli', 'core', 'contract'],
  mcp: ['mcp', 'core', 'contract'],
  commands: ['commands', 'cli', 'core', 'contract'],
  // The one layer that joins the server and the client; nothing of ours imports it.
  testing: ['testing', 'core', 'sandbox', 'contract'],
}

/** The files that may load a layer they otherwise may not, and then only through an `import()` expression. */
const LAZY: readonly {file: string; layer: string; why: string}[] = [
  {
    file: 'src/commands/sandbox/start.ts',
    layer: 'sandbox',
    why: 'starts the server in its process; loaded lazily, it stays out of the CLI bundle and other commands',
  },
  {
    file: 'src/commands/sandbox/run.ts',
    layer: 'sandbox',
    why: 'a one-shot sandbox in its process, stopped with it whatever its command does; loaded lazily like start',
  },
  {
    file: 'src/commands/mcp.ts',
    layer: 'mcp',
    why: 'the MCP server and its SDK load with this command only: lazily, they stay out of every other command',
  },
]

/**
 * Within the sandbox, a feature's routes are the outermost part of it: its descriptor (feature.ts)
 * serves them, and nothing else imports them (a service that did would depend on how requests are read).
 */
const FEATURE_ROUTES = /^src\/sandbox\/[^/]+\/routes\.ts$/
const descriptorOf = (routes: string) => routes.replace(/routes\.ts$/, 'feature.ts')

/**
 * The sandbox is rooms, each a folder of src/sandbox/ named for what it holds, and a few files at its
 * root (SANDBOX_ROOT). A room is one of three kinds:
 *
 * - infrastructure (INFRASTRUCTURE): what the features stand on, and what every request passes
 *   through before any feature runs; the context, the server and each feature may import it;
 * - the money kernel (KERNEL), below every feature and knowing none of them;
 * - a feature: every other room, described once by its feature.ts (features.ts lists them).
 *
 * Features sit above the rest:
 *
 * - no feature imports another (what two need is the kernel's or the infrastructure's);
 * - the kernel and context.ts import no feature: every feature builds on them;
 * - the rest (the root's files and the infrastructure) reaches a feature only through its
 *   descriptor (feature.ts), as features.ts lists them.
 *
 * An infrastructure room may serve endpoints of its own, as a feature does (its feature.ts, in the
 * list): faults and snapshots are met by every request and by the sandbox's start, so what keeps
 * them is infrastructure, and their endpoints stay beside it.
 */
const INFRASTRUCTURE: Readonly<Record<string, string>> = {
  tenancy:
    'who is asking and which rows are theirs: authentication, tokens, the partners and their table, every row of a partner, the users each request is checked against',
  storage: 'the data file: the database and its migrations, what each column holds, ids, the checkpointer',
  http: "how a request is read and answered: the server, JSON bodies, validation, the API's errors, rate limits, idempotency, paged lists",
  faults:
    'faults on demand, which every request (the server) and every webhook delivery meets, and their endpoints',
  snapshots:
    "snapshots of a partner or of the whole sandbox, which a sandbox may start from: the store, the file, its checks, the partners' quotas, and their endpoints",
}
const KERNEL = 'money'
const CONTEXT = 'src/sandbox/context.ts'

/**
 * The files at the sandbox's root, each with why it is not in a room: the sandbox as a whole, and
 * the two records every room dates and writes by. Any other file there belongs in a room.
 */
const SANDBOX_ROOT: Readonly<Record<string, string>> = {
  'index.ts':
    'the entry: startSandbox assembles every room (the package export payctl/sandbox, which `sandbox start` loads)',
  'context.ts': "what the sandbox is made of: each room's part, from which every feature takes what it uses",
  'feature.ts': 'what a feature is: the descriptor each feature exports',
  'features.ts': 'the list of features and every table: the one file that names each feature',
  'clock.ts':
    "the partners' clocks and the work that falls due on them, which the kernel, the features, the snapshots and the tick share",
  'event-log.ts':
    'the log every change records into: the kernel and the features write it, webhooks and GET /events read it',
}
/** Past this many, the root is a room of its own again. */
const MAX_AT_ROOT = 10

/** The room of a file in src/sandbox/ (its folder there); undefined at the root and outside the sandbox. */
function roomOf(path: string): string | undefined {
  const [top, layer, folder, ...rest] = path.split('/')
  return top === 'src' && layer === 'sandbox' && rest.length > 0 ? folder : undefined
}

/** The sandbox feature a file belongs to; undefined for the infrastructure, the kernel, the root and outside the sandbox. */
function featureOf(path: string): string | undefined {
  const room = roomOf(path)
  return room === undefined || room === KERNEL || room in INFRASTRUCTURE ? undefined : room
}

/** What `file` importing `target` breaks of the sandbox's rules, if anything. */
function sandboxBreak(file: string, target: string): string | undefined {
  const to = featureOf(target)
  if (to === undefined) return undefined
  const from = featureOf(file)
  if (from !== undefined) {
    return from === to
      ? undefined
      : `${file} imports ${target} (feature ${from} may not import feature ${to})`
  }
  if (!file.startsWith('src/sandbox/')) return undefined
  if (roomOf(file) === KERNEL) return `${file} imports ${target} (the kernel imports no feature)`
  if (file === CONTEXT) return `${file} imports ${target} (the context imports no feature)`
  if (target === `src/sandbox/${to}/feature.ts`) return undefined
  return `${file} imports ${target} (the infrastructure reaches feature ${to} only through its feature.ts)`
}

/** The name of a file without its folder and extension: `store` for src/sandbox/snapshots/store.ts. */
const baseName = (path: string) => posix.basename(path).replace(/\.[^.]*$/, '')

/**
 * The room a file's name names, if any: a room's own name (`faults.ts`), or, for a room of things,
 * one of them and what of it (`snapshot-store.ts`, the snapshots' store). A name that merely starts
 * with another word (`http-delivery.ts`, the delivery over HTTP) names no room.
 */
function roomNamed(name: string, rooms: readonly string[]): string | undefined {
  return rooms.find((room) => {
    const one = room.replace(/s$/, '')
    return name === room || name === one || (one !== room && name.startsWith(`${one}-`))
  })
}

/**
 * Where the sandbox's files stand against its rooms, one line for each that is out of place:
 *
 * - at the root, only the files SANDBOX_ROOT lists (and at most MAX_AT_ROOT of them): any other
 *   belongs in the room of what it holds, a feature's or the infrastructure's;
 * - a file named for a room is in that room (`webhooks/faults.ts` would read as the faults room's),
 *   and says what it holds there without the room's name again (`snapshots/store.ts`, not
 *   `snapshots/snapshot-store.ts`).
 *
 * @param paths every file of src/, relative to the repository root
 */
function misplaced(paths: readonly string[]): string[] {
  const sandbox = paths.filter((p) => p.startsWith('src/sandbox/') && p.endsWith('.ts'))
  const rooms = [...new Set(sandbox.map(roomOf).filter((r) => r !== undefined))].sort()
  const found: string[] = []
  for (const path of sandbox) {
    const room = roomOf(path)
    const named = roomNamed(baseName(path), rooms)
    if (room === undefined) {
      if (posix.basename(path) in SANDBOX_ROOT) continue
      const where = named === undefined ? "a feature's folder or an infrastructure room" : `${named}/`
      found.push(
        `${path} lies loose at the sandbox's root (it belongs in ${where}; the root holds only SANDBOX_ROOT)`,
      )
    } else if (named !== undefined && named !== room) {
      found.push(
        `${path} is named for ${named}/ but lies in ${room}/ (name it for what it holds in ${room}/)`,
      )
    } else if (named === room) {
      found.push(`${path} repeats its room's name (it lies in ${room}/ already)`)
    }
  }
  if (Object.keys(SANDBOX_ROOT).length > MAX_AT_ROOT) {
    found.push(`the sandbox's root holds more than ${MAX_AT_ROOT} files: give some a room`)
  }
  return found
}

type How = 'static' | 'dynamic' | 'type' | 'computed'
interface Import {
  file: string
  specifier: string
  how: How
}

/** The layer of a path relative to the repository root, or undefined when it lies in none. */
function layerOf(path: string): string | undefined {
  if (path === 'src/index.ts') return 'core'
  const [top, layer, ...rest] = path.split('/')
  return top === 'src' && layer && rest.length > 0 && layer in MAY_IMPORT ? layer : undefined
}

/** How an import() or require() call with a name that is not a literal string reads in a report. */
const COMPUTED = 'a module whose name is computed'

const ROOT = join(import.meta.dirname, '..', '..')
const PACKAGE = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  name: string
  exports: Record<string, {types: string; default: string}>
}

/**
 * The source file behind an import of the package by its own name (`payctl/sandbox`), through its
 * exports (whose declarations are tsc's, beside the source's path); undefined for any other package.
 */
function selfReference(specifier: string): string | undefined {
  const {name, exports} = PACKAGE
  if (specifier !== name && !specifier.startsWith(`${name}/`)) return undefined
  const declared = exports[`.${specifier.slice(name.length)}`]?.types
  return declared?.replace(/^\.\/dist\//, 'src/').replace(/\.d\.ts$/, '.ts')
}

/**
 * Every module reference in the files, read by TypeScript's parser (so comments and strings that look like
 * imports are not imports): `import`/`export … from` including type-only ones, `import()` expressions,
 * `typeof import('…')` types, and `require('…')` calls. An `import()` or `require()` whose name is not a
 * literal string cannot be checked, so it is reported as such.
 *
 * @param files source text by path relative to the repository root
 */
async function importsOf(files: Record<string, string>): Promise<Import[]> {
  return readSources(files, (file, source) => {
    const found: Import[] = []
    // The parser's own list of the file's module references: the names of imports and exports,
    // of import() calls and of import types.
    for (const name of source.imports) {
      const how: How =
        name.parent.kind === SyntaxKind.CallExpression
          ? 'dynamic'
          : name.parent.kind === SyntaxKind.LiteralType
            ? 'type'
            : 'static'
      if (isStringLiteralLikeNode(name)) found.push({file, specifier: name.text, how})
    }
    const visit = (node: Node): void => {
      if (isCallExpression(node)) {
        const isImport = node.expression.kind === SyntaxKind.ImportKeyword
        const isRequire = isIdentifier(node.expression) && node.expression.text === 'require'
        const [name] = node.arguments
        if (isRequire && name && isStringLiteralLikeNode(name)) {
          found.push({file, specifier: name.text, how: 'static'})
        } else if ((isImport || isRequire) && !(name && isStringLiteralLikeNode(name))) {
          found.push({file, specifier: COMPUTED, how: 'computed'})
        }
      }
      node.forEachChild(visit)
    }
    visit(source)
    return found
  })
}

/** The file of ours an import names, relative to the repository root; undefined for another package or a builtin. */
function targetOf(file: string, specifier: string): string | undefined {
  return specifier.startsWith('.')
    ? posix.join(posix.dirname(file), specifier).replace(/\.js$/, '.ts')
    : selfReference(specifier)
}

/**
 * One line for each group of files that import one another (directly or through others), naming a
 * cycle through it from the first of its files by name, so that the same tree always reads the same.
 */
function cyclesIn(imports: readonly Import[]): string[] {
  const edges = new Map<string, Set<string>>()
  for (const {file, specifier, how} of imports) {
    const target = how === 'computed' ? undefined : targetOf(file, specifier)
    if (target === undefined) continue
    const targets = edges.get(file) ?? new Set<string>()
    edges.set(file, targets.add(target))
  }
  const found: string[] = []
  for (const group of stronglyConnected(edges)) {
    const [first] = [...group].sort()
    if (first === undefined || (group.size === 1 && !edges.get(first)?.has(first))) continue
    found.push(`import cycle: ${shortestCycle(first, group, edges).join(' → ')}`)
  }
  return found
}

/** The strongly connected components of a graph (Tarjan's algorithm). */
function stronglyConnected(edges: ReadonlyMap<string, ReadonlySet<string>>): Set<string>[] {
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const groups: Set<string>[] = []
  const visit = (node: string): void => {
    index.set(node, index.size)
    low.set(node, index.get(node)!)
    stack.push(node)
    onStack.add(node)
    for (const next of edges.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next)
        low.set(node, Math.min(low.get(node)!, low.get(next)!))
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!))
      }
    }
    if (low.get(node) !== index.get(node)) return
    const group = new Set<string>()
    let member: string | undefined
    do {
      member = stack.pop()!
      onStack.delete(member)
      group.add(member)
    } while (member !== node)
    groups.push(group)
  }
  for (const node of [...edges.keys()].sort()) if (!index.has(node)) visit(node)
  return groups
}

/** The shortest way from `first` back to itself within its group, `first` at both ends. */
function shortestCycle(
  first: string,
  group: ReadonlySet<string>,
  edges: ReadonlyMap<string, ReadonlySet<string>>,
): string[] {
  const cameFrom = new Map<string, string>()
  const queue = [first]
  for (let i = 0; i < queue.length; i++) {
    const node = queue[i]!
    for (const next of [...(edges.get(node) ?? [])].sort()) {
      if (next === first) {
        const path = [node]
        while (path[0] !== first) path.unshift(cameFrom.get(path[0]!)!)
        return [...path, first]
      }
      if (group.has(next) && !cameFrom.has(next)) {
        cameFrom.set(next, node)
        queue.push(next)
      }
    }
  }
  throw new Error(`${first} is in a cycle that does not lead back to it`)
}

/** The broken rules among the imports of the files, one line each: the layers, then the cycles. */
async function violations(files: Record<string, string>): Promise<string[]> {
  const broken: string[] = []
  const imports = await importsOf(files)
  for (const {file, specifier, how} of imports) {
    const from = layerOf(file)
    if (how === 'computed') {
      broken.push(`${file} imports ${specifier} (the layer rules cannot check it)`)
      continue
    }
    const target = targetOf(file, specifier)
    // Another package, or a node builtin.
    if (target === undefined) continue
    const to = layerOf(target)
    const sandbox = sandboxBreak(file, target)
    if (FEATURE_ROUTES.test(target) && file !== descriptorOf(target)) {
      broken.push(`${file} imports ${target} (only ${descriptorOf(target)} imports a feature's routes)`)
    } else if (sandbox !== undefined) {
      broken.push(sandbox)
    } else if (!from) {
      broken.push(`${file} imports ${target} (${file} is in no layer)`)
    } else if (!to) {
      broken.push(`${file} imports ${target} (layer ${from} may not import what is in no layer)`)
    } else if (!MAY_IMPORT[from]!.includes(to)) {
      const lazy = LAZY.some((l) => l.file === file && l.layer === to)
      if (lazy && how === 'dynamic') continue
      broken.push(
        lazy
          ? `${file} imports ${target} (layer ${from} may import layer ${to} only through import())`
          : `${file} imports ${target} (layer ${from} may not import layer ${to})`,
      )
    }
  }
  return [...broken, ...cyclesIn(imports)]
}

/** Every .ts file under src/, by path relative to the repository root. */
function sourceTree(): Record<string, string> {
  const paths = readdirSync(join(ROOT, 'src'), {recursive: true, encoding: 'utf8'})
    .filter((p) => p.endsWith('.ts'))
    .map((p) => posix.join('src', p.split('\\').join('/')))
    .sort()
  return Object.fromEntries(paths.map((p) => [p, readFileSync(join(ROOT, p), 'utf8')]))
}

describe('layers', () => {
  it('hold in src/: each folder imports only the layers below it, and no file imports itself', async () => {
    const files = sourceTree()
    // An empty or mistaken walk must not pass for a tree without violations.
    expect(Object.keys(files).length).toBeGreaterThan(100)
    for (const layer of Object.keys(MAY_IMPORT)) {
      expect(Object.keys(files).some((f) => layerOf(f) === layer)).toBe(true)
    }
    expect(await violations(files)).toEqual([])
  })

  it('are enforced: the check reports each kind of break, and lets the allowed imports through', async () => {
    const files = {
      'src/contract/a.ts': "import {z} from 'zod'\nimport {b} from './b.js'\nexport const a = z.string()\n",
      'src/contract/b.ts': "import type {Client} from '../core/client.js'\nexport const b = 1\n",
      'src/core/x.ts': [
        "import {y} from '../sandbox/y.js'",
        "// import {nothing} from '../cli/in-a-comment.js'",
        'export const text = "import \'../cli/in-a-string.js\'"',
        "export * from '../contract/a.js'",
        'export {y}',
      ].join('\n'),
      'src/core/client.ts': "export type Client = typeof import('../cli/views.js')\n",
      'src/core/worker.ts': "const {y} = require('../sandbox/y.js')\nconst {join} = require('node:path')\n",
      'src/sandbox/y.ts': "export {Thing} from '../core/x.js'\nexport const y = 1\n",
      'src/cli/views.ts': "const name = 'x'\nexport const load = () => import(`../sandbox/${name}.js`)\n",
      'src/commands/sandbox/start.ts':
        "export const start = async () => (await import('../../sandbox/y.js')).y\nimport '../../cli/views.js'\n",
      'src/commands/sandbox/status.ts': "export const status = () => import('../../sandbox/y.js')\n",
      'src/commands/sandbox/reset.ts': "import {y} from '../../sandbox/y.js'\nexport {y}\n",
      'src/index.ts': "export * from './core/x.js'\n",
      'src/cli/self.ts': "import {startSandbox} from 'payctl/sandbox'\nimport {connect} from 'payctl'\n",
      'src/tools/z.ts': "import {a} from '../contract/a.js'\nexport {a}\n",
      'src/sandbox/bnpl/service.ts': "import type {R} from '../wallets/routes.js'\nexport type S = R\n",
      'src/sandbox/wallets/routes.ts': "import {y} from '../y.js'\nexport type R = typeof y\n",
      'src/sandbox/wallets/feature.ts': "import {walletRoutes} from './routes.js'\nexport {walletRoutes}\n",
    }
    expect((await violations(files)).sort()).toEqual(
      [
        'src/contract/b.ts imports src/core/client.ts (layer contract may not import layer core)',
        'src/core/x.ts imports src/sandbox/y.ts (layer core may not import layer sandbox)',
        'src/core/client.ts imports src/cli/views.ts (layer core may not import layer cli)',
        'src/core/worker.ts imports src/sandbox/y.ts (layer core may not import layer sandbox)',
        'src/sandbox/y.ts imports src/core/x.ts (layer sandbox may not import layer core)',
        `src/cli/views.ts imports ${COMPUTED} (the layer rules cannot check it)`,
        'src/commands/sandbox/status.ts imports src/sandbox/y.ts (layer commands may not import layer sandbox)',
        'src/commands/sandbox/reset.ts imports src/sandbox/y.ts (layer commands may not import layer sandbox)',
        'src/tools/z.ts imports src/contract/a.ts (src/tools/z.ts is in no layer)',
        'src/cli/self.ts imports src/sandbox/index.ts (layer cli may not import layer sandbox)',
        "src/sandbox/bnpl/service.ts imports src/sandbox/wallets/routes.ts (only src/sandbox/wallets/feature.ts imports a feature's routes)",
        'import cycle: src/core/x.ts → src/sandbox/y.ts → src/core/x.ts',
      ].sort(),
    )
  })

  it('find import cycles of every kind: static imports, type-only ones and import() expressions', async () => {
    // Each group stays within one layer, so that the cycles are all there is to report.
    const files = {
      // Static, through a third file and an `export … from`.
      'src/contract/a.ts': "import {b} from './b.js'\nexport const a = b\n",
      'src/contract/b.ts': "export {c as b} from './c.js'\n",
      'src/contract/c.ts': "import {a} from './a.js'\nexport const c = () => a\n",
      // Type-only both ways: `import type` and `typeof import()`, erased at run time.
      'src/core/d.ts': "import type {E} from './e.js'\nexport type D = E[]\n",
      'src/core/e.ts': "export type E = typeof import('./d.js')\n",
      // A lazy load back to a file that imports the loader.
      'src/sandbox/f.ts': "import {g} from './g.js'\nexport const f = g\n",
      'src/sandbox/g.ts': "export const g = async () => (await import('./f.js')).f\n",
      // A file that imports itself, by its own path and by the package's name.
      'src/cli/h.ts': "import type {H} from './h.js'\nexport interface H {next?: H}\n",
      'src/contract/index.ts': "export type {Z} from 'payctl/contract'\nexport type Z = 1\n",
      // Two ways to one file, and a computed import(): no cycle.
      'src/commands/i.ts': "import {j} from './j.js'\nimport {k} from './k.js'\nexport const i = [j, k]\n",
      'src/commands/j.ts': "import {k} from './k.js'\nexport const j = k\n",
      'src/commands/k.ts': 'export const k = 1\nexport const load = (name: string) => import(name)\n',
    }
    expect((await violations(files)).sort()).toEqual(
      [
        'import cycle: src/contract/a.ts → src/contract/b.ts → src/contract/c.ts → src/contract/a.ts',
        'import cycle: src/core/d.ts → src/core/e.ts → src/core/d.ts',
        'import cycle: src/sandbox/f.ts → src/sandbox/g.ts → src/sandbox/f.ts',
        'import cycle: src/cli/h.ts → src/cli/h.ts',
        'import cycle: src/contract/index.ts → src/contract/index.ts',
        `src/commands/k.ts imports ${COMPUTED} (the layer rules cannot check it)`,
      ].sort(),
    )
  })

  it("keep the sandbox's features above its infrastructure, and each to itself", async () => {
    const files = {
      // Allowed: a feature's imports of its own files, the infrastructure and the kernel; the
      // list's of descriptors; the context's of the kernel and the infrastructure; the server's
      // and an infrastructure room's of another; a feature's of an infrastructure room's inside.
      'src/sandbox/bnpl/service.ts':
        "import {refund} from '../money/refunds.js'\nimport {Tenants} from '../tenancy/tenants.js'\nimport {BNPL} from './schema.js'\n",
      'src/sandbox/bnpl/feature.ts':
        "import {bnplRoutes} from './routes.js'\nimport {BnplService} from './service.js'\n",
      'src/sandbox/features.ts':
        "import {bnpl} from './bnpl/feature.js'\nimport {faults} from './faults/feature.js'\nimport {MONEY} from './money/schema.js'\n",
      'src/sandbox/context.ts': [
        "import type {Principal} from './tenancy/authenticate.js'",
        "import type {FaultStore} from './faults/injection.js'",
        "import type {MoneyService} from './money/service.js'",
        "import type {RetrySchedule} from './webhooks/schedule.js'",
      ].join('\n'),
      'src/sandbox/http/server.ts':
        "import {Authenticator} from '../tenancy/authenticate.js'\nimport {injectApiFault} from '../faults/injection.js'\n",
      'src/sandbox/tenancy/authenticate.ts': "import type {TokenService} from './tokens.js'\n",
      'src/sandbox/snapshots/store.ts': "import {PartnerRows} from '../tenancy/partner-rows.js'\n",
      'src/sandbox/webhooks/delivery-faults.ts': "import type {FaultStore} from '../faults/injection.js'\n",
      // Broken: a feature importing another, the kernel or the context a feature (the context's
      // last line), the rest of the infrastructure a feature's inside, wherever it stands.
      'src/sandbox/transactions/service.ts': "import {installmentOwner} from '../bnpl/schema.js'\n",
      'src/sandbox/wallets/service.ts': "import type {RoundupSettings} from '../roundups/settings.js'\n",
      'src/sandbox/money/service.ts': "import {BNPL} from '../bnpl/schema.js'\n",
      'src/sandbox/money/owners.ts': "import type {auth} from '../auth/feature.js'\n",
      'src/sandbox/clock.ts': "const load = () => import('./bnpl/service.js')\n",
      'src/sandbox/index.ts': "import {WebhookService} from './webhooks/service.js'\n",
      'src/sandbox/tenancy/tokens.ts': "import type {UserService} from '../users/service.js'\n",
      'src/sandbox/http/pagination.ts': "import {RetrySchedule} from '../webhooks/schedule.js'\n",
      'src/sandbox/faults/injection.ts': "import type {DeliveryRow} from '../webhooks/rows.js'\n",
    }
    expect((await violations(files)).sort()).toEqual(
      [
        'src/sandbox/transactions/service.ts imports src/sandbox/bnpl/schema.ts (feature transactions may not import feature bnpl)',
        'src/sandbox/wallets/service.ts imports src/sandbox/roundups/settings.ts (feature wallets may not import feature roundups)',
        'src/sandbox/money/service.ts imports src/sandbox/bnpl/schema.ts (the kernel imports no feature)',
        'src/sandbox/money/owners.ts imports src/sandbox/auth/feature.ts (the kernel imports no feature)',
        'src/sandbox/context.ts imports src/sandbox/webhooks/schedule.ts (the context imports no feature)',
        'src/sandbox/clock.ts imports src/sandbox/bnpl/service.ts (the infrastructure reaches feature bnpl only through its feature.ts)',
        'src/sandbox/index.ts imports src/sandbox/webhooks/service.ts (the infrastructure reaches feature webhooks only through its feature.ts)',
        'src/sandbox/tenancy/tokens.ts imports src/sandbox/users/service.ts (the infrastructure reaches feature users only through its feature.ts)',
        'src/sandbox/http/pagination.ts imports src/sandbox/webhooks/schedule.ts (the infrastructure reaches feature webhooks only through its feature.ts)',
        'src/sandbox/faults/injection.ts imports src/sandbox/webhooks/rows.ts (the infrastructure reaches feature webhooks only through its feature.ts)',
      ].sort(),
    )
  })

  it("hold the sandbox's root to its listed files, and each room's files to names of their own", () => {
    const paths = Object.keys(sourceTree())
    // The tree has rooms of each kind, and what the lists name is there.
    expect(paths.some((p) => featureOf(p) !== undefined)).toBe(true)
    for (const room of [KERNEL, ...Object.keys(INFRASTRUCTURE)]) {
      expect(
        paths.some((p) => roomOf(p) === room),
        `room ${room}/`,
      ).toBe(true)
    }
    for (const file of Object.keys(SANDBOX_ROOT)) expect(paths).toContain(`src/sandbox/${file}`)
    expect(misplaced(paths)).toEqual([])
  })

  it('find a file out of its room: loose at the root, named for another room, or repeating its own', () => {
    const paths = [
      // Allowed: the listed root files, rooms' files named for what they hold there, a name that
      // only starts with a room's word, the files of a folder within a room.
      'src/sandbox/index.ts',
      'src/sandbox/clock.ts',
      'src/sandbox/snapshots/store.ts',
      'src/sandbox/faults/injection.ts',
      'src/sandbox/http/server.ts',
      'src/sandbox/tenancy/partners.ts',
      'src/sandbox/webhooks/delivery-faults.ts',
      'src/sandbox/webhooks/http-delivery.ts',
      'src/sandbox/inspector/browser/main.ts',
      'src/cli/snapshot-views.ts',
      // Broken: loose at the root, named for a room or for none; named for another room; repeating its own.
      'src/sandbox/snapshot-cache.ts',
      'src/sandbox/helpers.ts',
      'src/sandbox/webhooks/faults.ts',
      'src/sandbox/storage/snapshot-file.ts',
      'src/sandbox/inspector/http.ts',
      'src/sandbox/snapshots/snapshot-swap.ts',
    ]
    expect(misplaced(paths).sort()).toEqual(
      [
        "src/sandbox/snapshot-cache.ts lies loose at the sandbox's root (it belongs in snapshots/; the root holds only SANDBOX_ROOT)",
        "src/sandbox/helpers.ts lies loose at the sandbox's root (it belongs in a feature's folder or an infrastructure room; the root holds only SANDBOX_ROOT)",
        'src/sandbox/webhooks/faults.ts is named for faults/ but lies in webhooks/ (name it for what it holds in webhooks/)',
        'src/sandbox/storage/snapshot-file.ts is named for snapshots/ but lies in storage/ (name it for what it holds in storage/)',
        'src/sandbox/inspector/http.ts is named for http/ but lies in inspector/ (name it for what it holds in inspector/)',
        "src/sandbox/snapshots/snapshot-swap.ts repeats its room's name (it lies in snapshots/ already)",
      ].sort(),
    )
  })

  it('let the sandbox be loaded lazily only where allowed, and never by a static import there', async () => {
    const start = 'src/commands/sandbox/start.ts'
    const eager = "import {startSandbox} from '../../sandbox/index.js'\nstartSandbox()\n"
    expect(await violations({[start]: eager})).toEqual([
      `${start} imports src/sandbox/index.ts (layer commands may import layer sandbox only through import())`,
    ])
    const typeOnly = "export type {Sandbox} from '../../sandbox/index.js'\n"
    expect(await violations({[start]: typeOnly})).toHaveLength(1)
    expect(await violations({[start]: "await import('../../sandbox/index.js')\n"})).toEqual([])
    // The real file does load the sandbox, so the exception is not a dead letter.
    expect(await importsOf({[start]: readFileSync(join(ROOT, start), 'utf8')})).toContainEqual({
      file: start,
      specifier: '../../sandbox/index.js',
      how: 'dynamic',
    })
  })
})
