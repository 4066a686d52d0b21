/**
 * Bundle the library's entries with esbuild into `dist/library`, with their dependencies, so that an
 * installed payctl needs none installed beside it (npm would warn about their `engines` on Node 20):
 *
 * - `index.js` (`payctl`), `contract.js` (`payctl/contract`), `sandbox.js` (`payctl/sandbox`, which
 *   `payctl sandbox start` imports too), `testing.js` (`payctl/testing`);
 * - `chunk-*.js`: the code they share, beside them, so that every module of the bundle is two
 *   folders below the package, as in src/ (the sandbox reads `../../package.json` for its version).
 *
 * zod stays an import: it is a dependency of the package (it installs on any Node, with no
 * dependency of its own), because the library's types are zod's schemas, which a TypeScript user
 * composes with their own. Their declarations are tsc's, in dist/ (package.json `exports`).
 *
 * Plain ES modules for the importing process's own Node, from Node 20: `payctl` and
 * `payctl/contract` load there, and `payctl/sandbox` fails with one line (src/sandbox/storage/sqlite.ts).
 *
 *   node scripts/bundle-library.ts        (part of `npm run build`)
 */
import {readFileSync, rmSync} from 'node:fs'
import {isBuiltin} from 'node:module'
import {join, relative, resolve} from 'node:path'
import {build} from 'esbuild'
import {commonJsNamedExports} from './bundle-commonjs.ts'
import {recordPackages} from './notices.ts'

const ROOT = resolve(import.meta.dirname, '..')
const BUILD = process.env.PAYCTL_BUILD_DIR ?? join(ROOT, 'dist')
const OUT = join(BUILD, 'library')
/** What the bundle leaves to node_modules: the package's own dependencies. */
const EXTERNAL = Object.keys(
  (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {dependencies?: Record<string, string>})
    .dependencies ?? {},
)

rmSync(OUT, {recursive: true, force: true})
const result = await build({
  absWorkingDir: ROOT,
  entryPoints: {
    index: 'src/index.ts',
    contract: 'src/contract/index.ts',
    sandbox: 'src/sandbox/index.ts',
    testing: 'src/testing/index.ts',
  },
  outdir: OUT,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  metafile: true,
  logLevel: 'warning',
  chunkNames: '[name]-[hash]',
  external: EXTERNAL,
  // A CommonJS package (yaml, undici) imported by an ES module has the named exports Node gives it.
  plugins: [commonJsNamedExports(ROOT)],
  // Bundled CommonJS (fastify, undici…) calls require() and reads __dirname: an ES module has neither.
  banner: {
    js: [
      "import {createRequire as __payctlRequire} from 'node:module'",
      "import {dirname as __payctlDirname} from 'node:path'",
      "import {fileURLToPath as __payctlPath} from 'node:url'",
      'const require = __payctlRequire(import.meta.url)',
      'const __filename = __payctlPath(import.meta.url)',
      'const __dirname = __payctlDirname(__filename)',
    ].join(';'),
  },
})

/** ws's optional native speed-ups, which it requires inside a try: absent, it does without. */
const OPTIONAL = ['bufferutil', 'utf-8-validate']

/**
 * Every bare import left in the bundle is a dependency the package declares, a Node builtin, or one
 * of OPTIONAL.
 */
const undeclared = Object.values(result.metafile.outputs)
  .flatMap((o) => o.imports)
  .filter((i) => i.external && !isBuiltin(i.path) && !i.path.startsWith('.'))
  .filter((i) => !OPTIONAL.includes(i.path) || i.kind !== 'require-call')
  .filter((i) => !EXTERNAL.some((d) => i.path === d || i.path.startsWith(`${d}/`)))
recordPackages(BUILD, result.metafile)
if (undeclared.length > 0)
  throw new Error(`the library bundle imports ${[...new Set(undeclared.map((i) => i.path))].join(', ')}`)
console.log(
  `library: ${Object.keys(result.metafile.outputs).filter((o) => o.endsWith('.js')).length} files in ${relative(ROOT, OUT)}`,
)
