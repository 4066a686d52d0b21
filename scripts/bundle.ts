/**
 * Bundle the CLI with esbuild into `dist/bundle`, so that a payctl process reads a handful of files
 * instead of ~600 modules: finding, reading and compiling them was most of its startup time.
 *
 * - `main.js`: oclif and the entry point (`src/cli/main.ts`) that `bin/run.js` imports.
 * - `commands.js`: every command, as the `COMMANDS` object of oclif's explicit command discovery
 *   (`oclif.commands` in package.json). Generated from `src/commands/**`, so a new command file needs
 *   no registration.
 * - `chunks/`: code the two share, and one chunk per dynamic `import()` (undici, prompts, ora,
 *   yaml…), so what a command does not use is never read.
 *
 * The sandbox stays out of the bundle: `sandbox start` imports the tsc build in `dist/sandbox`, the
 * same code the `payctl/sandbox` export serves.
 *
 *   node scripts/bundle.ts [--analyze]        (part of `npm run build`)
 */
import {globSync, mkdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {createRequire, isBuiltin} from 'node:module'
import {dirname, join, relative, resolve} from 'node:path'
import {analyzeMetafile, build, type Plugin, transform} from 'esbuild'

const ROOT = resolve(import.meta.dirname, '..')
const OUT = join(ROOT, 'dist', 'bundle')
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

const commandsEntry: Plugin = {
  name: 'commands-entry',
  setup(b) {
    b.onResolve({filter: /^payctl:commands$/}, () => ({path: 'commands', namespace: 'payctl-commands'}))
    b.onLoad({filter: /.*/, namespace: 'payctl-commands'}, () => ({
      contents: [
        ...commandFiles.map((f, i) => `import C${i} from './src/commands/${f}'`),
        'export const COMMANDS = {',
        ...commandFiles.map((f, i) => `  ${JSON.stringify(commandId(f))}: C${i},`),
        '}',
      ].join('\n'),
      resolveDir: ROOT,
      loader: 'ts',
    }))
  },
}

/** `import('../../sandbox/index.js')` stays an import of the tsc build next to the bundle. */
const sandboxOutside: Plugin = {
  name: 'sandbox-outside',
  setup(b) {
    const sandboxIndex = join(ROOT, 'src', 'sandbox', 'index.ts')
    b.onResolve({filter: /\/sandbox\/index\.js$/}, (args) => {
      if (resolve(args.resolveDir, args.path.replace(/\.js$/, '.ts')) !== sandboxIndex) return undefined
      return {path: '../sandbox/index.js', external: true}
    })
  },
}

/**
 * An ES module import of a Node builtin (`import {readFileSync} from 'node:fs'`) makes Node build an
 * ES module facade of it, which reads every export and so loads the lazy parts too: fs streams and
 * promises, util's parseArgs, process.report… `process.getBuiltinModule()` hands over the module
 * object without that, and the bundle's imports become property reads.
 */
const builtinsWithoutFacade: Plugin = {
  name: 'builtins-without-facade',
  setup(b) {
    b.onResolve({filter: /^[a-z_:/]+$/}, (args) => {
      if (args.kind !== 'import-statement' || !isBuiltin(args.path)) return undefined
      return {path: args.path, namespace: 'payctl-builtin'}
    })
    b.onLoad({filter: /.*/, namespace: 'payctl-builtin'}, (args) => ({
      contents: `module.exports = process.getBuiltinModule(${JSON.stringify(args.path)})`,
    }))
  },
}

/**
 * `await import('undici')` of a CommonJS package gives named exports under Node, found by its
 * CommonJS lexer; esbuild's chunk for it would export only `default`. So a dynamic import of a
 * CommonJS package goes through a small ES module that re-exports its names, read at build time.
 */
const commonJsNamedExports: Plugin = {
  name: 'commonjs-named-exports',
  setup(b) {
    b.onResolve({filter: /^[^./]/}, async (args) => {
      if (args.kind !== 'dynamic-import' || args.pluginData === 'real') return undefined
      const resolved = await b.resolve(args.path, {
        kind: 'import-statement',
        resolveDir: args.resolveDir,
        pluginData: 'real',
      })
      if (resolved.errors.length > 0 || resolved.external || !isCommonJs(resolved.path)) return undefined
      return {path: resolved.path, namespace: 'payctl-cjs'}
    })
    b.onLoad({filter: /.*/, namespace: 'payctl-cjs'}, (args) => {
      const names = Object.keys(requireFromRoot(args.path)).filter(
        (n) => n !== 'default' && n !== '__esModule' && /^[A-Za-z_$][\w$]*$/.test(n),
      )
      return {
        resolveDir: dirname(args.path),
        contents: [
          `const m = require(${JSON.stringify(args.path)})`,
          'export default m',
          ...names.map((n) => `export const ${n} = m.${n}`),
        ].join('\n'),
      }
    })
  },
}

function isCommonJs(file: string): boolean {
  if (file.endsWith('.cjs')) return true
  if (!file.endsWith('.js')) return false
  for (let dir = dirname(file); dir !== dirname(dir); dir = dirname(dir)) {
    try {
      return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).type !== 'module'
    } catch {
      // no package.json here: look further up
    }
  }
  return true
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

rmSync(OUT, {recursive: true, force: true})
const result = await build({
  absWorkingDir: ROOT,
  entryPoints: {main: 'src/cli/main.ts', commands: 'payctl:commands'},
  outdir: OUT,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node24',
  sourcemap: 'linked',
  metafile: true,
  write: false,
  logLevel: 'warning',
  chunkNames: 'chunks/[name]-[hash]',
  // Bundled CommonJS (oclif and a few dependencies) calls require(): give the ES modules a real one.
  banner: {js: "const require = process.getBuiltinModule('node:module').createRequire(import.meta.url);"},
  // oclif loads TypeScript only to run uncompiled plugins, which payctl never does.
  external: ['typescript', 'ts-node'],
  plugins: [commandsEntry, sandboxOutside, builtinsWithoutFacade, commonJsNamedExports],
})

let wrapped = 0
let factories = 0
for (const file of result.outputFiles) {
  mkdirSync(dirname(file.path), {recursive: true})
  if (!file.path.endsWith('.js')) {
    writeFileSync(file.path, file.contents)
    continue
  }
  // Line and column of every statement stay put, so the source maps still hold.
  const {code, count} = compileModuleBodiesEagerly(file.text)
  factories += (file.text.match(/= __(?:commonJS|esm)\(\{$/gm) ?? []).length
  wrapped += count
  await transform(code, {format: 'esm', loader: 'js', logLevel: 'error'})
  writeFileSync(file.path, code)
}
if (wrapped !== factories) {
  throw new Error(`wrapped ${wrapped} of ${factories} module bodies: has esbuild's output changed shape?`)
}
if (process.argv.includes('--analyze')) console.log(await analyzeMetafile(result.metafile))
console.log(`bundled ${commandFiles.length} commands into ${relative(ROOT, OUT)}`)
