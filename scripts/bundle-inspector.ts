/**
 * Bundle the sandbox inspector's browser code with esbuild into `dist/inspector/`: one script
 * (preact, htm, the pages and the contract's money formatting) and one style sheet, served by the
 * sandbox itself at /_sandbox/ui/assets/. Nothing is fetched at run time: the page works with no
 * network, and its Content-Security-Policy lets it load nothing from elsewhere.
 *
 *   node scripts/bundle-inspector.ts      (part of `npm run build`)
 */
import {copyFileSync, mkdirSync, statSync} from 'node:fs'
import {join, resolve} from 'node:path'
import {build} from 'esbuild'
import {recordPackages} from './notices.ts'

const ROOT = resolve(import.meta.dirname, '..')
const SOURCE = join(ROOT, 'src', 'sandbox', 'inspector', 'browser')
const BUILD = process.env.PAYCTL_BUILD_DIR ?? join(ROOT, 'dist')
const OUT = join(BUILD, 'inspector')

mkdirSync(OUT, {recursive: true})
const result = await build({
  entryPoints: [join(SOURCE, 'main.ts')],
  outfile: join(OUT, 'inspector.js'),
  bundle: true,
  format: 'esm',
  platform: 'browser',
  // What the sandbox's own Chromium and every current browser run: no down-levelling of bigint or classes.
  target: 'es2022',
  minify: true,
  legalComments: 'eof',
  metafile: true,
  logLevel: 'warning',
})
recordPackages(BUILD, result.metafile)
for (const file of ['inspector.css', 'icon.svg']) copyFileSync(join(SOURCE, file), join(OUT, file))
const kb = (file: string) => (statSync(join(OUT, file)).size / 1024).toFixed(1)
console.log(`inspector: inspector.js ${kb('inspector.js')} KiB, inspector.css ${kb('inspector.css')} KiB`)
