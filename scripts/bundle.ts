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
import {globSync, readFileSync, rmSync} from 'node:fs'
import {createRequire} from 'node:module'
import {dirname, join, relative, resolve} from 'node:path'
import {analyzeMetafile, build, type Plugin} from 'esbuild'

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
    b.onResolve({filter: /^payctl:commands$/}, () => ({
      path: 'commands',
      namespace: 'payctl-commands',
    }))
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
  logLevel: 'warning',
  chunkNames: 'chunks/[name]-[hash]',
  // Bundled CommonJS (oclif and a few dependencies) calls require(): give the ES modules a real one.
  banner: {
    js: "import {createRequire as __payctlCreateRequire} from 'node:module';const require = __payctlCreateRequire(import.meta.url);",
  },
  // oclif loads TypeScript only to run uncompiled plugins, which payctl never does.
  external: ['typescript', 'ts-node'],
  plugins: [commandsEntry, sandboxOutside, commonJsNamedExports],
})

if (process.argv.includes('--analyze')) console.log(await analyzeMetafile(result.metafile))
console.log(`bundled ${commandFiles.length} commands into ${relative(ROOT, OUT)}`)
