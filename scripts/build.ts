/**
 * `npm run build`: build payctl into a new folder, `.dist-<id>` (beside `dist`, so that a module's
 * way up to the package, `../../` from `dist/bundle/`, is the same from it), and only then make it
 * the one `dist` names, in one step. `dist` is a symbolic link, replaced by renaming a new link over it: a
 * payctl that starts meanwhile sees the whole old build or the whole new one, never a half-written
 * tree, and one already running keeps reading the build it started from (Node resolves a module
 * through the link to the build's own folder), which is kept until the build after this one.
 *
 * - the tsc build of src/ (what the tests of the build import, and the library's declarations), then
 *   the library's bundle (scripts/bundle-library.ts), the CLI's (scripts/bundle.ts) and the
 *   inspector's (scripts/bundle-inspector.ts), all into the new folder (PAYCTL_BUILD_DIR), with the
 *   licences of the packages they carry (THIRD-PARTY-NOTICES.md, scripts/notices.ts);
 * - oclif's manifest of the new build's commands, made beside it and renamed into place with it;
 * - `dist`, switched; builds before the previous one, removed.
 *
 * `npm pack` packs no symbolic link: `node scripts/build.ts --pack` (prepack) puts a copy of the
 * build at `dist` for it, and `--unpack` (postpack) the link back. The copy holds what an installed
 * payctl runs, no more: the bundles, minified, with no source maps (they were most of the package),
 * and tsc's declarations of the library, not its JavaScript (the bundles have it). package.json loses
 * its `prepare` script meanwhile: it sets up a checkout, its file is not packed, and npm's
 * allow-scripts policy would ask every user to approve it.
 *
 * A `dist` that is a folder (a checkout from before, or a pack that did not finish) is moved aside at
 * the next build, and removed at the one after.
 *
 *   node scripts/build.ts [--pack|--unpack]
 */
import {spawnSync} from 'node:child_process'
import {
  cpSync,
  globSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import {join, relative, resolve} from 'node:path'
import {transform} from 'esbuild'
import {writeNotices} from './notices.ts'

const ROOT = resolve(import.meta.dirname, '..')
const DIST = join(ROOT, 'dist')
const PREFIX = '.dist-'
/** A build's folder. */
const folder = (id: string) => join(ROOT, `${PREFIX}${id}`)
/** Which build `npm pack` has a copy of at `dist` (between --pack and --unpack). */
const PACKED = join(ROOT, `${PREFIX}packed`)
const PACKAGE = join(ROOT, 'package.json')
/** package.json as it was before --pack took out its `prepare` script, until --unpack. */
const MANIFEST_KEPT = join(ROOT, `${PREFIX}packed.package.json`)

/** Run a step of the build, stopping the build where it fails. */
function step(command: string, args: string[], env: NodeJS.ProcessEnv = {}): void {
  const result = spawnSync(command, args, {cwd: ROOT, stdio: 'inherit', env: {...process.env, ...env}})
  if (result.status !== 0) {
    console.error(`build: ${command} ${args.join(' ')} failed (${result.status ?? result.signal})`)
    process.exit(1)
  }
}

/** The build `dist` names now, if it is a link to one. */
function current(): string | undefined {
  const stat = lstatSync(DIST, {throwIfNoEntry: false})
  return stat?.isSymbolicLink() === true ? readlinkSync(DIST).slice(PREFIX.length) : undefined
}

/** Make `dist` a link to the build `id`, by renaming a new link over it (a folder there moves aside first). */
function point(id: string): void {
  if (lstatSync(DIST, {throwIfNoEntry: false})?.isSymbolicLink() === false)
    renameSync(DIST, folder(`old-${Date.now().toString(36)}`))
  const link = `${folder(id)}.link`
  rmSync(link, {force: true})
  symlinkSync(`${PREFIX}${id}`, link)
  renameSync(link, DIST)
}

function build(): void {
  const id = `${Date.now().toString(36)}-${process.pid}`
  const out = folder(id)
  const env = {PAYCTL_BUILD_DIR: out}
  // Emitted without a type check: `npm run typecheck` (run beside the build by `npm test`) checks it.
  step('tsc', ['-p', 'tsconfig.build.json', '--outDir', out, '--noCheck'])
  step(process.execPath, ['scripts/bundle-library.ts'], env)
  step(process.execPath, ['scripts/bundle.ts'], env)
  step(process.execPath, ['scripts/bundle-inspector.ts'], env)
  writeNotices(out)
  // oclif reads the commands a package.json names: one beside the new build, whose `dist` is it.
  const beside = `${out}.manifest`
  mkdirSync(beside)
  cpSync(join(ROOT, 'package.json'), join(beside, 'package.json'))
  symlinkSync(join('..', `${PREFIX}${id}`), join(beside, 'dist'))
  symlinkSync(join('..', 'node_modules'), join(beside, 'node_modules'))
  step('oclif', ['manifest', beside])
  const previous = current()
  point(id)
  renameSync(join(beside, 'oclif.manifest.json'), join(ROOT, 'oclif.manifest.json'))
  rmSync(beside, {recursive: true, force: true})
  // The previous build stays for a payctl still running from it; those before it go.
  const kept = new Set([id, previous, 'packed', 'packed.package.json'].map((b) => `${PREFIX}${b}`))
  for (const name of readdirSync(ROOT))
    if (name.startsWith(PREFIX) && !kept.has(name)) rmSync(join(ROOT, name), {recursive: true, force: true})
}

/** What of a build the package ships: the bundles, the declarations of the library's entries, the notices. */
const SHIPPED = /^(bundle|library|inspector)\/|\.d\.ts$|^THIRD-PARTY-NOTICES\.md$/
/** tsc's declarations of modules no library entry reaches: the CLI's. */
const UNSHIPPED_DECLARATIONS = /^(cli|commands|mcp)\//

/**
 * For `npm pack`: a copy of the build at `dist`, which it packs (it packs no link), with what an
 * installed payctl runs and no more: the bundles (minified: no one reads them there, and no source
 * maps), not tsc's JavaScript, which they hold.
 */
async function pack(): Promise<void> {
  const id = current()
  if (id === undefined) return
  const copy = `${folder(id)}.pack`
  rmSync(copy, {recursive: true, force: true})
  cpSync(folder(id), copy, {recursive: true})
  for (const file of globSync('**/*', {cwd: copy, withFileTypes: true})) {
    if (!file.isFile()) continue
    const path = relative(copy, join(file.parentPath, file.name))
    if (!SHIPPED.test(path) || UNSHIPPED_DECLARATIONS.test(path) || path.endsWith('.map'))
      rmSync(join(copy, path))
    else if (path.endsWith('.js') && !path.startsWith('inspector/')) await minify(join(copy, path))
  }
  removeEmptyFolders(copy)
  rmSync(DIST)
  renameSync(copy, DIST)
  writeFileSync(PACKED, id)
  const manifest = readFileSync(PACKAGE, 'utf8')
  const packed = JSON.parse(manifest)
  if (packed.scripts?.prepare === undefined) return
  writeFileSync(MANIFEST_KEPT, manifest)
  delete packed.scripts.prepare
  writeFileSync(PACKAGE, `${JSON.stringify(packed, null, 2)}\n`)
}

/**
 * Minify a bundled file in place (unminified, the bundles would take the package past its 8.9 MB:
 * test/release/install.test.ts), keeping what the bundle relies on: the names of classes and
 * functions (`keepNames`: oclif and errors read them), and the parentheses that make V8 compile a
 * module's body with its file (scripts/bundle.ts compileModuleBodiesEagerly), which esbuild keeps.
 * Licence comments go: THIRD-PARTY-NOTICES.md has each package's licence whole.
 */
async function minify(file: string): Promise<void> {
  const {code} = await transform(readFileSync(file, 'utf8'), {
    format: 'esm',
    loader: 'js',
    minify: true,
    keepNames: true,
    legalComments: 'none',
    logLevel: 'error',
  })
  writeFileSync(file, code.replace(/\n\/\/# sourceMappingURL=\S+\n?$/, '\n'))
}

function removeEmptyFolders(dir: string): void {
  for (const entry of readdirSync(dir, {withFileTypes: true}))
    if (entry.isDirectory()) removeEmptyFolders(join(dir, entry.name))
  if (readdirSync(dir).length === 0) rmSync(dir, {recursive: true})
}

/** After `npm pack`: the link back in place of the copy (which point() moves aside, to be removed). */
function unpack(): void {
  let id: string
  try {
    id = readFileSync(PACKED, 'utf8')
  } catch {
    return
  }
  if (lstatSync(DIST, {throwIfNoEntry: false})?.isSymbolicLink() === false) point(id)
  rmSync(PACKED, {force: true})
  try {
    renameSync(MANIFEST_KEPT, PACKAGE)
  } catch {}
}

const mode = process.argv[2]
if (mode === '--pack') await pack()
else if (mode === '--unpack') unpack()
else build()
