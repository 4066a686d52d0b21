/**
 * The fast path's generated part (bundled as dist/bundle/fast.js, which bin/run.js loads first):
 * the one-call commands of ONE_CALL_COMMANDS (src/cli/fast-path/one-call.ts) with the flags each takes, the
 * GET each sends and the check of its answer, generated from the endpoint table; and the commands
 * and topics whose help can come from a kept rendering. Read from the tsc build (dist/), so it runs
 * after `tsc`, inside `node scripts/bundle.ts`.
 *
 * The build fails here, rather than a user's command go wrong, when a command of the table is not
 * one the fast path can run as the full CLI would: an operation other than a GET of one record, an
 * argument list other than one required argument, a flag whose definition the fast path does not
 * know (test/unit/bundle-checks.test.ts shows a new flag failing the build), or a surface it cannot check.
 */
import {globSync} from 'node:fs'
import {join} from 'node:path'
import {pathToFileURL} from 'node:url'
import {surfaceCheckSource} from './surface-check.ts'

// biome-ignore lint/suspicious/noExplicitAny: oclif's command classes and zod's schemas, read structurally
type Any = any

/** A flag definition as the fast path reads it (src/cli/fast-path/fast-start.ts FastFlag). */
interface FlagSpec {
  kind: 'boolean' | 'value' | 'option'
  char?: string
  aliases?: string[]
  options?: string[]
}

/**
 * The flags the fast path understands, as their definitions must read. The global ones (and the
 * `--json` that oclif adds) every command takes; the rest only a command whose entry names them.
 */
const UNDERSTOOD: Record<string, FlagSpec> = {
  profile: {kind: 'value', char: 'p'},
  debug: {kind: 'boolean'},
  'no-input': {kind: 'boolean'},
  output: {kind: 'option', char: 'o', options: ['table', 'json', 'ndjson', 'yaml', 'csv']},
  columns: {kind: 'value', aliases: ['fields']},
  wide: {kind: 'boolean'},
}
const GLOBAL = ['profile', 'debug', 'no-input']
/**
 * Flags every command takes that the fast path leaves to the full CLI: left out of its table, so
 * that an argument list with one is not one it matches (matchArgv), and goes to the full CLI whole.
 * `--jq` loads jq, which costs more than the whole fast path saves.
 */
const HANDED_OVER = ['jq']

/** Values a flag's parser must hand back unchanged; the fast path hands the rest over. */
const PLAIN_VALUES = ['local', 'x', 'a b', '__proto__', 'usr_1', '0']

export interface FastPathTable {
  /** The source of the generated module's table: `export const COMMANDS = […]`, `TARGETS`. */
  source: string
  /** The command ids of the table. */
  ids: string[]
}

/** Load the tsc build's commands, table and endpoints (in `build`), check them, and write the generated table. */
export async function fastPathTable(build: string, commandIds: string[]): Promise<FastPathTable> {
  const load = (path: string) => import(pathToFileURL(join(build, path)).href)
  const [{ONE_CALL_COMMANDS}, {OneCallCommand}, {endpoints}] = await Promise.all([
    load('cli/fast-path/one-call.js'),
    load('cli/fast-path/one-call-command.js'),
    load('contract/index.js'),
  ])
  const classes = new Map<string, Any>()
  for (const id of commandIds) {
    classes.set(id, (await load(`commands/${id.replaceAll(':', '/')}.js`)).default)
  }
  for (const [id, cls] of classes) {
    if (cls.prototype instanceof OneCallCommand && !Object.hasOwn(ONE_CALL_COMMANDS, id))
      throw new Error(
        `${id} is a OneCallCommand with no entry in ONE_CALL_COMMANDS (src/cli/fast-path/one-call.ts)`,
      )
  }
  const entries: string[] = []
  for (const [id, entry] of Object.entries(ONE_CALL_COMMANDS as Record<string, Any>)) {
    const cls = classes.get(id)
    if (!(cls?.prototype instanceof OneCallCommand))
      throw new Error(`ONE_CALL_COMMANDS names ${id}, which is no OneCallCommand of src/commands`)
    for (const other of commandIds) {
      if (other.startsWith(`${id}:`))
        throw new Error(
          `${other} begins with the one-call command ${id}: its argument could be read as a word of ${other}`,
        )
    }
    entries.push(await commandSource(id, entry, cls, endpoints[entry.operation]))
  }
  return {
    source: `export const COMMANDS = [\n${entries.join(',\n')}\n]\n${targetsSource(commandIds)}`,
    ids: Object.keys(ONE_CALL_COMMANDS),
  }
}

/** One command of the table, as source. */
async function commandSource(id: string, entry: Any, cls: Any, endpoint: Any): Promise<string> {
  const label = `the one-call command ${id} (${entry.operation})`
  const params = [...String(endpoint?.path).matchAll(/\{(\w+)\}/g)].map((m) => m[1])
  if (
    endpoint?.method !== 'GET' ||
    params.length !== 1 ||
    endpoint.auth !== 'bearer' ||
    endpoint.host === 'auth' ||
    endpoint.query !== undefined ||
    endpoint.body !== undefined
  ) {
    throw new Error(
      `${label}: not a GET of one record by one path parameter on the main host, with the profile's credential`,
    )
  }
  const args = Object.values(cls.args ?? {}) as Any[]
  if (
    args.length !== 1 ||
    args[0].required !== true ||
    args[0].options ||
    args[0].multiple ||
    cls.strict === false
  )
    throw new Error(`${label}: takes other than one required argument`)
  const flags = await flagSpecs(id, cls, entry.flags as string[])
  const schema = endpoint.surface ?? endpoint.response
  return `  {
    id: ${JSON.stringify(id)},
    words: ${JSON.stringify(id.split(':'))},
    flags: ${JSON.stringify(flags)},
    operation: ${JSON.stringify({id: entry.operation, path: endpoint.path, versioned: endpoint.versioned !== false, param: params[0]})},
    check: ${surfaceCheckSource(schema, label).replaceAll('\n', '\n    ')},
  }`
}

/** Every flag of a one-call command, checked against what the fast path understands, with `--json`; throws for any other. */
export async function flagSpecs(id: string, cls: Any, own: string[]): Promise<Any[]> {
  if (cls.enableJsonFlag !== true) throw new Error(`${id}: a one-call command takes --json`)
  const defined = {...cls.baseFlags, ...cls.flags} as Record<string, Any>
  const specs: Any[] = [{name: 'json', kind: 'boolean'}]
  for (const [name, flag] of Object.entries(defined)) {
    if (HANDED_OVER.includes(name)) continue
    const spec = UNDERSTOOD[name]
    if (spec === undefined || (!GLOBAL.includes(name) && !own.includes(name)))
      throw new Error(
        `${id} takes --${name}, which its fast path does not understand: teach it (scripts/fast-path.ts and src/cli/fast-path/one-call.ts), or take ${id} out of ONE_CALL_COMMANDS`,
      )
    await checkDefinition(id, name, flag, spec)
    specs.push({name, ...spec})
  }
  for (const name of own)
    if (!Object.hasOwn(defined, name))
      throw new Error(`${id}: its entry names --${name}, which it does not take`)
  return specs
}

/** The flag's definition reads as the fast path expects, down to its parser on plain values. */
async function checkDefinition(id: string, name: string, flag: Any, spec: FlagSpec): Promise<void> {
  const fail = (what: string): never => {
    throw new Error(
      `${id}: --${name} ${what}, which its fast path does not understand: review scripts/fast-path.ts`,
    )
  }
  const type = spec.kind === 'boolean' ? 'boolean' : 'option'
  if (flag.type !== type) fail(`is of type ${flag.type}`)
  if ((flag.char ?? undefined) !== spec.char) fail(`has the short form ${flag.char}`)
  if (JSON.stringify(flag.aliases ?? []) !== JSON.stringify(spec.aliases ?? [])) fail('has other aliases')
  if (JSON.stringify(flag.options ?? []) !== JSON.stringify(spec.options ?? [])) fail('has other options')
  if (flag.charAliases?.length || flag.multiple || flag.allowNo || flag.env || flag.required)
    fail('has other settings')
  if (flag.default !== undefined || flag.dependsOn || flag.exclusive || flag.relationships || flag.deprecated)
    fail('has a default or relationships')
  if (spec.kind === 'boolean') return
  for (const value of spec.options ?? PLAIN_VALUES) {
    // oclif's parsers take (input, context, options); these read only the input.
    const parsed = await Promise.resolve(flag.parse(value, {}, flag)).catch(() => fail(`refuses "${value}"`))
    if (parsed !== value) fail(`reads "${value}" as ${JSON.stringify(parsed)}`)
  }
}

/** The ids and topics help can be asked for (src/cli/fast-path/help-cache.ts HelpTargets), as source. */
function targetsSource(commandIds: string[]): string {
  const commands = [...commandIds, 'help', 'autocomplete']
  const topics = new Set<string>()
  for (const id of commands) {
    const parts = id.split(':')
    for (let n = 1; n < parts.length; n++) topics.add(parts.slice(0, n).join(':'))
  }
  return `export const TARGETS = {commands: new Set(${JSON.stringify(commands)}), topics: new Set(${JSON.stringify([...topics].sort())})}\n`
}

/** The command ids of src/commands, as oclif names them. */
export function commandIdsIn(root: string): string[] {
  return globSync('**/*.ts', {cwd: join(root, 'src', 'commands')})
    .filter((f) => !f.endsWith('.d.ts'))
    .map((f) =>
      f
        .replace(/\.ts$/, '')
        .replace(/\/index$/, '')
        .replaceAll('/', ':'),
    )
    .sort()
}
