/**
 * Bundle the CLI with esbuild into `dist/bundle`, so that a payctl process reads a handful of files
 * instead of ~600 modules: finding, reading and compiling them was most of its startup time.
 *
 * - `main.js`: oclif and the entry point (`src/cli/main.ts`) that `bin/run.js` imports.
 * - `commands.js`: every command, as the `COMMANDS` object of oclif's explicit command discovery
 *   (`oclif.commands` in package.json). Generated from `src/commands/**`, so a new command file needs
 *   no registration, and the commands of oclif's help and autocomplete plugins
 *   (scripts/bundled-plugins.ts); and the hook of an unknown command (`oclif.hooks`).
 * - `fast.js`: what `bin/run.js` loads first, the fast path of the one-call commands and of help,
 *   which loads neither oclif nor zod (src/cli/fast-path/fast-start.ts); its table is generated from the
 *   endpoint table and ONE_CALL_COMMANDS (scripts/fast-path.ts). Built on its own, as one file
 *   (fastBuild): each module file a process loads costs it about half a millisecond.
 * - `chunks/`: code they share, and one chunk per dynamic `import()` (undici, prompts, ora,
 *   yaml…), so what a command does not use is never read.
 *
 * The sandbox stays out of the bundle: `sandbox start` imports the library's bundle of it,
 * `dist/library/sandbox.js` (scripts/bundle-library.ts), the code the `payctl/sandbox` export serves.
 * Everything else is in the bundle, dependencies included (an installed payctl has none but zod and
 * the Node binary): jq-wasm's jq.wasm is copied beside the chunk that reads it.
 *
 *   node scripts/bundle.ts [--analyze]        (part of `npm run build`)
 */

import {createHash} from 'node:crypto'
import {copyFileSync, globSync, mkdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {createRequire, isBuiltin} from 'node:module'
import {dirname, join, relative, resolve} from 'node:path'
import {analyzeMetafile, build, type Metafile, type Plugin, transform} from 'esbuild'
import {
  checkIdOrder,
  checkLazyModulesUsed,
  checkOwnCalls,
  checkStandIn,
  type LazyModule,
  type OwnCall,
  standInSource,
} from './bundle-checks.ts'
import {commonJsNamedExports} from './bundle-commonjs.ts'
import {cliTable3Script} from './bundle-table.ts'
import {bundledPluginCommands} from './bundled-plugins.ts'
import {fastPathTable} from './fast-path.ts'
import {recordPackages} from './notices.ts'

const ROOT = resolve(import.meta.dirname, '..')
/** The build being made (scripts/build.ts), or dist/ itself. */
const BUILD = process.env.PAYCTL_BUILD_DIR ?? join(ROOT, 'dist')
const OUT = join(BUILD, 'bundle')
const requireFromRoot = createRequire(join(ROOT, 'package.json'))

/** `wallets/get.ts` → `wallets:get`, as oclif's pattern discovery names commands. */
function commandId(file: string): string {
  const parts = file.replace(/\.ts$/, '').split('/')
  if (parts.length > 1 && parts.at(-1) === 'index') parts.pop()
  return parts.join(':')
}

const commandFiles = globSync('**/*.ts', {cwd: join(ROOT, 'src', 'commands')})
  .filter((f) => !f.endsWith('.d.ts'))
  .sort()

/** The commands of oclif's help and autocomplete plugins, bundled as payctl's own (scripts/bundled-plugins.ts). */
const pluginCommands = bundledPluginCommands(ROOT)

const commandsEntry: Plugin = {
  name: 'commands-entry',
  setup(b) {
    b.onResolve({filter: /^payctl:commands$/}, () => ({path: 'commands', namespace: 'payctl-commands'}))
    b.onLoad({filter: /.*/, namespace: 'payctl-commands'}, () => ({
      contents: [
        ...commandFiles.map((f, i) => `import C${i} from './src/commands/${f}'`),
        ...pluginCommands.map((c, i) => `import P${i} from ${JSON.stringify(c.file)}`),
        'export const COMMANDS = {',
        ...commandFiles.map((f, i) => `  ${JSON.stringify(commandId(f))}: C${i},`),
        ...pluginCommands.map((c, i) => `  ${JSON.stringify(c.id)}: P${i},`),
        '}',
        "export {default as notFound} from './src/cli/not-found.ts'",
      ].join('\n'),
      resolveDir: ROOT,
      loader: 'ts',
    }))
  },
}

/** Stands for the build's id in fast.js until every file is built (see buildId). */
const BUILD_ID_PLACEHOLDER = '@@payctl-build-id@@'

const fastTable = await fastPathTable(BUILD, commandFiles.map(commandId))
const fastEntry: Plugin = {
  name: 'fast-entry',
  setup(b) {
    b.onResolve({filter: /^payctl:fast$/}, () => ({path: 'fast', namespace: 'payctl-fast'}))
    b.onLoad({filter: /.*/, namespace: 'payctl-fast'}, () => ({
      contents: [
        "import {fastStart} from './src/cli/fast-path/fast-start.ts'",
        fastTable.source,
        `const BUILD = ${JSON.stringify(BUILD_ID_PLACEHOLDER)}`,
        '/** Run argv on the fast path where it can: undefined when done, else what to hand to main(). */',
        'export function fast(argv) {',
        '  return fastStart(argv, {commands: COMMANDS, targets: TARGETS, build: BUILD})',
        '}',
      ].join('\n'),
      resolveDir: ROOT,
      loader: 'js',
    }))
  },
}

/**
 * `import('../../sandbox/index.js')` becomes an import of the library's bundle of the sandbox, beside
 * the CLI's: `../library/sandbox.js` from a file of dist/bundle (checkSandboxImporters).
 */
const SANDBOX_BUNDLE = '../library/sandbox.js'
const sandboxOutside: Plugin = {
  name: 'sandbox-outside',
  setup(b) {
    const sandboxIndex = join(ROOT, 'src', 'sandbox', 'index.ts')
    b.onResolve({filter: /\/sandbox\/index\.js$/}, (args) => {
      if (resolve(args.resolveDir, args.path.replace(/\.js$/, '.ts')) !== sandboxIndex) return undefined
      return {path: SANDBOX_BUNDLE, external: true}
    })
  },
}

/** Fail the build if a chunk imports the sandbox: its relative path holds only from dist/bundle itself. */
function checkSandboxImporters(metafile: Metafile): void {
  for (const [out, output] of Object.entries(metafile.outputs)) {
    if (!output.imports.some((i) => i.external && i.path === SANDBOX_BUNDLE)) continue
    if (resolve(ROOT, dirname(out)) !== OUT)
      throw new Error(
        `${out} imports ${SANDBOX_BUNDLE}, which it cannot reach from there: review sandboxOutside`,
      )
  }
}

/**
 * jq-wasm reads its jq.wasm from `build/` beside its own module (`__dirname`, from import.meta.url):
 * beside the chunk that holds it, once bundled.
 */
function copyJqWasm(metafile: Metafile): void {
  const module = requireFromRoot.resolve('jq-wasm').replace(/\.cjs$/, '.mjs')
  const holders = Object.keys(metafile.outputs).filter((out) =>
    Object.keys(metafile.outputs[out]!.inputs).some((i) => resolve(ROOT, i) === module),
  )
  if (holders.length !== 1)
    throw new Error(`jq-wasm is in ${holders.length} files of the bundle: review copyJqWasm`)
  const source = readFileSync(module, 'utf8')
  if (!source.includes('join(__dirname, "build", "jq.wasm")'))
    throw new Error('jq-wasm no longer reads build/jq.wasm beside its module: review copyJqWasm')
  const target = join(ROOT, dirname(holders[0]!), 'build')
  mkdirSync(target, {recursive: true})
  copyFileSync(join(dirname(module), 'build', 'jq.wasm'), join(target, 'jq.wasm'))
}

/**
 * An ES module import of a Node builtin (`import {readFileSync} from 'node:fs'`) makes Node build an
 * ES module facade of it, which reads every export and so loads the lazy parts too: fs streams and
 * promises, util's parseArgs, process.report… Here each builtin is an ES module over the object
 * `process.getBuiltinModule()` hands over: one export per property, each read only if something
 * imports it (an unused export is dropped), so the lazy parts stay unloaded. A builtin is loaded
 * only when first used: a plain function (lower-case, with no properties of its own, as
 * `randomBytes` or `readFileSync`) is exported as one that calls the builtin's, so that importing
 * it loads nothing (node:crypto costs a fast path more than its own code).
 */
const builtinsWithoutFacade: Plugin = {
  name: 'builtins-without-facade',
  setup(b) {
    b.onResolve({filter: /^[a-z_:/]+$/}, (args) => {
      if (args.kind !== 'import-statement' || !isBuiltin(args.path)) return undefined
      // A builtin nothing uses is not loaded: node:crypto behind a helper the fast path never calls.
      // payctl's own modules have a facade of their own, apart from the dependencies' (conf's
      // `import crypto from 'node:crypto'`): esbuild runs a facade whole, default export and all,
      // once anything of it is used.
      const own = !args.importer.includes('/node_modules/')
      return {path: args.path, namespace: 'payctl-builtin', sideEffects: false, suffix: own ? '?own' : ''}
    })
    b.onLoad({filter: /.*/, namespace: 'payctl-builtin'}, (args) => {
      const real = process.getBuiltinModule(args.path) as Record<string, unknown>
      const names = Object.getOwnPropertyNames(real).filter(
        (n) => n !== 'default' && /^[A-Za-z_$][\w$]*$/.test(n),
      )
      const plainFunction = (n: string) => {
        // The descriptor, not the property: a getter (a deprecated one warns) is not a function.
        const f = Object.getOwnPropertyDescriptor(real, n)?.value
        if (typeof f !== 'function' || !/^[a-z]/.test(n) || Object.getOwnPropertySymbols(f).length > 0)
          return false
        return Object.getOwnPropertyNames(f).every((p) => ['length', 'name', 'prototype'].includes(p))
      }
      return {
        contents: [
          'let real',
          `const m = () => (real ??= process.getBuiltinModule(${JSON.stringify(args.path)}))`,
          'export default /* @__PURE__ */ m()',
          ...names.map((n) =>
            plainFunction(n)
              ? `export function ${n}(...args) { return m().${n}.apply(this, args) }`
              : `export const ${n} = /* @__PURE__ */ (() => m().${n})()`,
          ),
        ].join('\n'),
      }
    })
  },
}

/**
 * Modules that dependencies load up front but use only on paths payctl rarely or never takes. Each
 * becomes a stand-in that loads the real module on first use (standInSource). The build checks each
 * against the real module (checkStandIn), each `own` fast path against the real function on the
 * calls listed (checkOwnCalls), and that each entry still stands in for an import of the bundle
 * (checkLazyModulesUsed): an upgrade that breaks one fails here.
 */
const LAZY_MODULES: LazyModule[] = [
  // oclif's check of the Node version, and conf's migrations.
  {specifier: 'semver'},
  // conf's schema validation: payctl's profile store has no schema.
  {specifier: 'ajv/dist/2020.js'},
  {specifier: 'ajv-formats'},
  // oclif matching its plugin list against the dependencies: a package name has no glob syntax, so
  // it matches only itself (a path like `foo/` or `@a//b` is left to minimatch, which takes it for one).
  {
    specifier: 'minimatch',
    own: `{
      minimatch: (path, pattern, options) =>
        options === undefined && typeof path === 'string' && typeof pattern === 'string' &&
        /^(@[\\w.-]+\\/)?[\\w.-]+$/.test(path) && /^(@[\\w.-]+\\/)?[\\w.-]+$/.test(pattern)
          ? path === pattern
          : load().minimatch(path, pattern, options),
    }`,
    calls: minimatchCalls,
  },
  // oclif renders every help text through ejs, compiling a template each time (~15 ms for the root
  // help): text without a tag renders as itself, unless options ask for something else.
  {
    specifier: 'ejs',
    own: `{
      render(template, data) {
        if (
          typeof template === 'string' && !template.includes('<%') && !template.includes('%>') &&
          arguments.length < 3 && !(data && (data.delimiter || data.async || data.rmWhitespace || data.debug))
        ) return template
        return load().render.apply(this, arguments)
      },
    }`,
    calls: ejsCalls,
  },
  // HTTP/2 in undici, which loads node:http2 and node:tls with it: used only once a TLS server
  // offers h2, by which time TLS is loaded anyway.
  {specifier: './client-h2.js', from: /undici\/lib\/dispatcher\/client\.js$/},
]

const PACKAGE = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  dependencies?: Record<string, string>
  devDependencies?: Record<string, string>
  oclif: {plugins?: string[]; devPlugins?: string[]}
}

/**
 * oclif calls `minimatch(name, pattern)` with each dependency's name and each pattern of
 * `oclif.plugins` and `oclif.devPlugins`: those the fast path must answer; then names and patterns
 * it must leave to minimatch, or answer as minimatch does.
 */
function minimatchCalls(): OwnCall[] {
  const names = Object.keys({...PACKAGE.dependencies, ...PACKAGE.devDependencies})
  const patterns = [...(PACKAGE.oclif.plugins ?? []), ...(PACKAGE.oclif.devPlugins ?? [])]
  const oclif = names.flatMap((name) =>
    patterns.map((p) => ({method: 'minimatch', args: [name, p], fast: true})),
  )
  const paths = [
    'foo',
    'foo/',
    './foo',
    '/foo',
    'Foo',
    '.foo',
    '.',
    '..',
    '',
    '@a/b',
    '@a//b',
    '@a/b/',
    'a.b',
  ]
  const globs = [
    'foo',
    'Foo',
    '.foo',
    '.',
    '..',
    '@a/b',
    '@a/*',
    '*',
    '**',
    'f?o',
    '[f]oo',
    '{foo,bar}',
    '!foo',
  ]
  const edges = [...globs, '#foo', 'foo/', '+(foo)', 'a.b', '@a/b/', '@a//b', '']
  return [
    ...oclif,
    ...paths.flatMap((path) => edges.map((p) => ({method: 'minimatch', args: [path, p]}))),
    {method: 'minimatch', args: ['@oclif/plugin-help', '@oclif/plugin-help', {}]},
    {method: 'minimatch', args: ['FOO', 'foo', {nocase: true}]},
  ]
}

/**
 * oclif renders help text with `render(text, helpFormatter)`, autocomplete summaries with
 * `render(text, {config})`: text without a tag (every string literal in src/commands, coloured text)
 * the fast path must answer; tags, and options that change the output, it must leave to ejs.
 */
function ejsCalls(): OwnCall[] {
  const literals = commandFiles.flatMap((f) =>
    [...readFileSync(join(ROOT, 'src', 'commands', f), 'utf8').matchAll(/'((?:[^'\\\n])*)'/g)].map(
      (m) => m[1]!,
    ),
  )
  const texts = [
    '',
    'plain',
    'a\nb\r\n',
    '  x  \n y ',
    '%',
    '100%',
    '<',
    '>',
    '%%',
    '\u001b[1mbold\u001b[22m',
    '`$x`',
  ]
  const data = {config: {bin: 'payctl'}, opts: {maxWidth: 80}, indentSpacing: 2}
  const tagged = ['<%= config.bin %>', '<%% x %%>', 'a %> b', '<%# c %>x', '$ <%= config.bin %> wallets get']
  return [
    ...[...literals, ...texts].flatMap((t) => [
      {method: 'render', args: [t, data], fast: !t.includes('<%') && !t.includes('%>')},
      {method: 'render', args: [t, {config: data.config}], fast: !t.includes('<%') && !t.includes('%>')},
    ]),
    ...tagged.map((t) => ({method: 'render', args: [t, data]})),
    ...texts.flatMap((t) => [
      {method: 'render', args: [t]},
      {method: 'render', args: [t, {}, {}]},
      {method: 'render', args: [t, {rmWhitespace: true}]},
      {method: 'render', args: [t, {async: true}]},
      {method: 'render', args: [`<?= 1 ?>${t}`, {delimiter: '?'}]},
    ]),
  ]
}

const lazyUsed = new Set<LazyModule>()
const lazyModules: Plugin = {
  name: 'lazy-modules',
  setup(b) {
    const escapeRegExp = (m: string) => m.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
    const filter = new RegExp(`^(${LAZY_MODULES.map((m) => escapeRegExp(m.specifier)).join('|')})$`)
    b.onResolve({filter}, async (args) => {
      if (args.pluginData === 'real') return undefined
      const index = LAZY_MODULES.findIndex(
        (m) => m.specifier === args.path && (m.from?.test(args.importer) ?? true),
      )
      if (index === -1) return undefined
      const resolved = await b.resolve(args.path, {
        kind: 'require-call',
        resolveDir: args.resolveDir,
        pluginData: 'real',
      })
      if (resolved.errors.length > 0) return undefined
      lazyUsed.add(LAZY_MODULES[index]!)
      return {path: resolved.path, namespace: 'payctl-lazy', pluginData: index}
    })
    b.onLoad({filter: /.*/, namespace: 'payctl-lazy'}, (args) => {
      const entry = LAZY_MODULES[args.pluginData as number]!
      const real = requireFromRoot(args.path) as object
      const source = standInSource(args.path, real, entry.own)
      const label = `"${entry.specifier}" (${relative(ROOT, args.path)})`
      checkStandIn(label, source, real, entry.own)
      if (entry.calls) checkOwnCalls(label, source, real, entry.calls())
      return {resolveDir: dirname(args.path), contents: source}
    })
  },
}

/**
 * oclif sorts the commands with `localeCompare` on every run, and the first call builds an ICU
 * collator: ~7 ms. For command ids (lowercase letters, digits, `:` and `-`) the default collation of
 * English and of ICU's root orders characters as `-` `:` `0`–`9` `a`–`z`, one by one, which a lookup
 * gives at once; other ids, and other locales, still go through `localeCompare`. The build fails if
 * oclif no longer sorts this way, or if the lookup orders payctl's and oclif's command ids (and a
 * few made up) otherwise than `localeCompare` (checkIdOrder).
 */
const OCLIF_SORT = '.sort((a, b) => a.id.localeCompare(b.id));'
const COMPARE_IDS = `function payctlCompareIds(a, b) {
  const order = '-:0123456789abcdefghijklmnopqrstuvwxyz'
  payctlRootOrder ??= /^(en|und)(-|$)/.test(new Intl.PluralRules().resolvedOptions().locale)
  if (!payctlRootOrder || !/^[a-z0-9:-]*$/.test(a) || !/^[a-z0-9:-]*$/.test(b)) return a.localeCompare(b)
  for (let i = 0; i < a.length && i < b.length; i++) {
    const d = order.indexOf(a[i]) - order.indexOf(b[i])
    if (d !== 0) return d < 0 ? -1 : 1
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0
}
let payctlRootOrder`
checkIdOrder(COMPARE_IDS, [
  ...commandFiles.map(commandId),
  ...['help', 'autocomplete', 'autocomplete:create', 'autocomplete:script'],
  ...[
    '',
    'a',
    'a-',
    'a:',
    'a-b',
    'a:b',
    'a0',
    'a9',
    'ab',
    'a-b:c',
    'a:b-c',
    'ab:c',
    'z',
    '0',
    '-',
    ':',
    '--',
    '::',
  ],
])
/**
 * Packages the fast path must never load (fast.js, all of it): each costs more than the whole fast
 * path, and the fast path is only worth having without them.
 */
const NOT_ON_THE_FAST_PATH = /node_modules\/(zod|@oclif|conf|undici|ajv|cli-table3|yaml|@inquirer|fastify)\//

/**
 * Fail the build if fast.js holds a package it must not load, or the one-call path (which is the
 * one-call script's), or is not the one file of its build.
 */
function checkFastPathLoads(metafile: Metafile): void {
  const outputs = Object.keys(metafile.outputs).filter((o) => o.endsWith('.js'))
  if (outputs.length !== 1 || !outputs[0]!.endsWith('bundle/fast.js'))
    throw new Error(`the fast path's build made ${outputs.join(', ')}, not fast.js alone: review fastBuild`)
  const inputs = Object.keys(metafile.outputs[outputs[0]!]!.inputs)
  if (inputs.some((i) => i.endsWith('src/cli/fast-path/fast-path.ts')))
    throw new Error(
      'fast.js holds src/cli/fast-path/fast-path.ts, which help never runs: review oneCallScript',
    )
  if (!inputs.some((i) => i.endsWith('src/cli/fast-path/one-call-script.ts')))
    throw new Error('fast.js does not run the one-call script: review oneCallScript')
  checkNotOnTheFastPath(inputs)
}

/** Fail the build if the one-call script holds a package the fast path must not load, or is not one file. */
function checkOneCallScript(metafile: Metafile): void {
  const outputs = Object.keys(metafile.outputs).filter((o) => o.endsWith('.cjs'))
  if (outputs.length !== 1 || !outputs[0]!.endsWith('bundle/fast-call.cjs'))
    throw new Error(
      `the one-call build made ${outputs.join(', ')}, not fast-call.cjs alone: review oneCallBuild`,
    )
  checkNotOnTheFastPath(Object.keys(metafile.outputs[outputs[0]!]!.inputs))
}

function checkNotOnTheFastPath(inputs: readonly string[]): void {
  const bad = inputs.filter((i) => NOT_ON_THE_FAST_PATH.test(i))
  if (bad.length > 0)
    throw new Error(`the fast path loads ${bad.slice(0, 5).join(', ')}: find the import that brings it in`)
}

/**
 * The one-call script's text, each `import(` of it (a chunk of the main build, a builtin) made a
 * call of `esmImp(`, which the script's wrapper hands it: an import() of fast.js, which sits beside
 * it (oneCallScript, src/cli/fast-path/one-call-script.ts):
 * an import() in a script of node:vm needs a loader that Node still calls experimental, and says
 * so on stderr. The same length, so that the source map still holds. The build fails unless it
 * finds exactly one for each dynamic import esbuild lists.
 */
function scriptImports(built: {metafile: Metafile; outputFiles: {path: string; text: string}[]}): string {
  const [out, meta] = Object.entries(built.metafile.outputs).find(([o]) => o.endsWith('.cjs'))!
  const file = built.outputFiles.find((f) => f.path.endsWith(out))!
  const dynamic = meta.imports.filter((i) => i.kind === 'dynamic-import').length
  const found = file.text.match(/(?<![\w$.])import\(/g)?.length ?? 0
  if (found !== dynamic || file.text.includes('esmImp'))
    throw new Error(
      `the one-call script has ${found} import( for ${dynamic} dynamic imports: review scriptImports`,
    )
  return file.text.replace(/(?<![\w$.])import\(/g, 'esmImp(')
}

/**
 * In fast.js, src/cli/fast-path/one-call-load.ts runs the one-call script `name` (beside fast.js)
 * through one-call-script.ts, instead of importing fast-path.ts.
 */
function oneCallScript(name: string): Plugin {
  const load = join(ROOT, 'src', 'cli', 'fast-path', 'one-call-load.ts')
  return {
    name: 'one-call-script',
    setup(b) {
      b.onLoad({filter: /\/src\/cli\/fast-path\/one-call-load\.ts$/}, (args) => {
        if (args.path !== load) return undefined
        return {
          contents: [
            "import {runOneCallScript} from './one-call-script.ts'",
            'export function runOneCall(run) {',
            `  return runOneCallScript(new URL(${JSON.stringify(`./${name}`)}, import.meta.url), run, (s) => import(new URL(s, import.meta.url).href))`,
            '}',
          ].join('\n'),
          resolveDir: dirname(args.path),
          loader: 'ts',
        }
      })
    },
  }
}

/**
 * The fast path's dynamic imports other than its own one-call path (ora for a spinner, yaml for
 * `roundups pending -o yaml`, and what the prompter and the transport import on paths the fast
 * path never takes) load the main build's chunk for that very import, rather than a copy of their
 * own: the build fails if the main build has none.
 */
function mainBuildChunks(main: Metafile): Plugin {
  const chunks = new Map<string, string>()
  for (const [out, o] of Object.entries(main.outputs)) if (o.entryPoint) chunks.set(o.entryPoint, out)
  return {
    name: 'main-build-chunks',
    setup(b) {
      b.onResolve({filter: /.*/}, async (args) => {
        if (args.kind !== 'dynamic-import' || args.pluginData === 'main-build-chunks' || isBuiltin(args.path))
          return undefined
        const resolved = await b.resolve(args.path, {
          kind: args.kind,
          importer: args.importer,
          resolveDir: args.resolveDir,
          pluginData: 'main-build-chunks',
        })
        if (resolved.errors.length > 0 || resolved.external) return undefined
        const key =
          resolved.namespace === 'file'
            ? relative(ROOT, resolved.path)
            : `${resolved.namespace}:${resolved.path}`
        if (key === join('src', 'cli', 'fast-path', 'fast-path.ts')) return undefined
        const chunk = chunks.get(key)
        if (chunk === undefined)
          throw new Error(
            `the fast path imports ${args.path} (${relative(ROOT, args.importer)}), of which the main build has no chunk`,
          )
        return {path: `./${relative(OUT, join(ROOT, chunk))}`, external: true}
      })
    },
  }
}

let oclifSorted = false
const oclifSortWithoutCollator: Plugin = {
  name: 'oclif-sort-without-collator',
  setup(b) {
    b.onLoad({filter: /@oclif\/core\/lib\/config\/plugin\.js$/}, (args) => {
      const source = readFileSync(args.path, 'utf8')
      if (!source.includes(OCLIF_SORT)) {
        throw new Error(`${args.path} no longer sorts with "${OCLIF_SORT}": review oclifSortWithoutCollator`)
      }
      oclifSorted = true
      return {
        contents: `${source.replace(OCLIF_SORT, '.sort((a, b) => payctlCompareIds(a.id, b.id));')}\n${COMPARE_IDS}\n`,
        loader: 'js',
      }
    })
  },
}

/**
 * V8 compiles a function when it is first called, and Node's compile cache only keeps what was
 * compiled with the file, so the body of each bundled CommonJS module (and lazily initialised ES
 * module) was compiled afresh in every run. Wrapped in parentheses, V8 compiles it with the file and
 * the compile cache keeps it.
 */
function compileModuleBodiesEagerly(code: string): {code: string; count: number} {
  let count = 0
  const out = code.replace(
    // A module body ends at the first "  }\n});" after its head, and never spans another head.
    /(= __(?:commonJS|esm)\(\{\n {2}"(?:[^"\\\n]|\\.)*")\(([^)\n]*)\) \{((?:(?!= __(?:commonJS|esm)\(\{)[\s\S])*?)\n {2}\}\n\}\);/g,
    (_, head: string, params: string, body: string) => {
      count++
      return `${head}: (function(${params}) {${body}\n  })\n});`
    },
  )
  return {code: out, count}
}

/**
 * The transport loads undici's Agent, EnvHttpProxyAgent and request API by their paths instead of
 * its index (src/core/transport.ts), and with a proxy puts the request methods on its Dispatcher as
 * the index does. They must be the very objects the index exports: an undici that moves or
 * replaces one fails the build here, not a user's command.
 */
function checkUndiciParts(): void {
  const undici = requireFromRoot('undici') as Record<string, unknown> & {Dispatcher: {prototype: object}}
  const prototype = undici.Dispatcher.prototype as Record<string, unknown>
  const api = requireFromRoot('undici/lib/api/index.js') as Record<string, unknown>
  const parts: [string, unknown][] = [
    ['undici/lib/dispatcher/agent.js', undici.Agent],
    ['undici/lib/dispatcher/env-http-proxy-agent.js', undici.EnvHttpProxyAgent],
    ['undici/lib/api/api-request.js', prototype.request],
    ['undici/lib/dispatcher/dispatcher.js', undici.Dispatcher],
    ...Object.entries(api).map(([name, method]): [string, unknown] => [
      `undici/lib/api/index.js#${name}`,
      method,
    ]),
  ]
  for (const [path, exported] of parts) {
    const [file, name] = path.split('#') as [string, string | undefined]
    const part = name === undefined ? requireFromRoot(file) : prototype[name]
    if (part !== exported || typeof exported !== 'function') {
      throw new Error(`${path} is no longer what undici's index exports: update src/core/transport.ts`)
    }
  }
}
checkUndiciParts()

const cliTable3 = await cliTable3Script(ROOT)
rmSync(OUT, {recursive: true, force: true})
/** What the three builds below share: Node 24 bundles, kept in memory, with their metafiles. */
const COMMON = {
  absWorkingDir: ROOT,
  outdir: OUT,
  bundle: true,
  platform: 'node',
  target: 'node24',
  sourcemap: 'linked',
  metafile: true,
  write: false,
  logLevel: 'warning',
} as const
// Bundled CommonJS (oclif and a few dependencies) calls require(): give the ES modules a real one.
const REQUIRE_BANNER = {
  js: "const require = process.getBuiltinModule('node:module').createRequire(import.meta.url);",
}

const result = await build({
  ...COMMON,
  entryPoints: {main: 'src/cli/main.ts', commands: 'payctl:commands'},
  splitting: true,
  format: 'esm',
  chunkNames: 'chunks/[name]-[hash]',
  banner: REQUIRE_BANNER,
  // oclif loads TypeScript only to run uncompiled plugins, which payctl never does.
  external: ['typescript', 'ts-node'],
  plugins: [
    commandsEntry,
    sandboxOutside,
    builtinsWithoutFacade,
    cliTable3.plugin,
    // Before commonJsNamedExports, which would otherwise take the modules it stands in for.
    lazyModules,
    commonJsNamedExports(ROOT),
    oclifSortWithoutCollator,
  ],
})

/**
 * The one-call path (src/cli/fast-path/fast-path.ts and what it imports), a CommonJS script of its
 * own, `fast-call-HASH.cjs` (HASH from its content as written), which fast.js runs through node:vm with a V8
 * code cache kept after a run (src/cli/fast-path/one-call-script.ts): Node's compile cache keeps
 * only what is compiled before a module runs. fast.js itself, what help needs, loads none of it.
 * Its `import.meta.url` is the script's own, which the wrapper hands it.
 */
const oneCallBuild = await build({
  ...COMMON,
  entryPoints: {'fast-call': 'src/cli/fast-path/fast-path.ts'},
  outExtension: {'.js': '.cjs'},
  splitting: false,
  format: 'cjs',
  define: {'import.meta.url': 'payctlScriptUrl'},
  plugins: [
    mainBuildChunks(result.metafile),
    builtinsWithoutFacade,
    cliTable3.plugin,
    commonJsNamedExports(ROOT),
  ],
})
checkOneCallScript(oneCallBuild.metafile)
const oneCallText = scriptImports(oneCallBuild)
// Named by a hash of what is written, not esbuild's [hash] of what it made: its code cache is
// named after it, and V8 checks only the length of the source a cache was made for.
const oneCallFile = `fast-call-${createHash('sha256').update(oneCallText).digest('hex').slice(0, 12).toUpperCase()}.cjs`

/**
 * fast.js, apart from the main build: that build's code splitting would put the fast path in nine
 * files (what it shares with main.js, with commands.js, with both…), where one file loads several
 * milliseconds sooner. Its modules are copies of the main build's: what they share with the full
 * CLI at run time lives outside them (a test's runtime: runtime.ts), or is handed over (Handover).
 * Its one-call path is not in it: fast-start.ts runs the one-call script above for a one-call
 * command only.
 */
const fastBuild = await build({
  ...COMMON,
  entryPoints: {fast: 'payctl:fast'},
  splitting: false,
  format: 'esm',
  banner: REQUIRE_BANNER,
  plugins: [
    fastEntry,
    oneCallScript(oneCallFile),
    mainBuildChunks(result.metafile),
    builtinsWithoutFacade,
    cliTable3.plugin,
    commonJsNamedExports(ROOT),
  ],
})
checkFastPathLoads(fastBuild.metafile)
checkSandboxImporters(result.metafile)
for (const built of [result, fastBuild, oneCallBuild]) recordPackages(BUILD, built.metafile)
const outputFiles = [...result.outputFiles, ...fastBuild.outputFiles, ...oneCallBuild.outputFiles]

const buildId = createHash('sha256')
// fast.js with the placeholder, which is the same in every build.
for (const file of outputFiles) buildId.update(file.contents)
buildId.update(readFileSync(join(ROOT, 'package.json')))
const BUILD_ID = buildId.digest('hex').slice(0, BUILD_ID_PLACEHOLDER.length)

let wrapped = 0
let factories = 0
for (const file of outputFiles) {
  mkdirSync(dirname(file.path), {recursive: true})
  if (file.path.endsWith('/fast-call.cjs')) {
    // Its source map keeps the name esbuild gave it, which the script's last line names.
    writeFileSync(join(OUT, oneCallFile), oneCallText)
    continue
  }
  if (!file.path.endsWith('.js')) {
    writeFileSync(file.path, file.contents)
    continue
  }
  // Line and column of every statement stay put, so the source maps still hold.
  // The same length, so that the source map still holds.
  const text = file.path.endsWith('fast.js') ? file.text.replace(BUILD_ID_PLACEHOLDER, BUILD_ID) : file.text
  const {code, count} = compileModuleBodiesEagerly(text)
  factories += (file.text.match(/= __(?:commonJS|esm)\(\{$/gm) ?? []).length
  wrapped += count
  await transform(code, {format: 'esm', loader: 'js', logLevel: 'error'})
  writeFileSync(file.path, code)
}
checkLazyModulesUsed(LAZY_MODULES, lazyUsed)
copyJqWasm(result.metafile)
cliTable3.write(OUT, result.metafile)
if (!fastBuild.outputFiles.some((f) => f.path.endsWith('fast.js') && f.text.includes(BUILD_ID_PLACEHOLDER)))
  throw new Error('fast.js has no build id to fill in: review fastEntry')
if (!oclifSorted) {
  throw new Error('the bundle has no @oclif/core/lib/config/plugin.js: review oclifSortWithoutCollator')
}
if (wrapped !== factories) {
  throw new Error(`wrapped ${wrapped} of ${factories} module bodies: has esbuild's output changed shape?`)
}
if (process.argv.includes('--analyze')) {
  console.log(await analyzeMetafile(result.metafile))
  console.log(await analyzeMetafile(fastBuild.metafile))
}
console.log(
  `bundled ${commandFiles.length} commands into ${relative(ROOT, OUT)}, ${fastTable.ids.length} of them with a fast path`,
)
