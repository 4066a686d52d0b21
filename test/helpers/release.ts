import {execFileSync} from 'node:child_process'
import {readdirSync} from 'node:fs'
import {join} from 'node:path'
import {ROOT} from './cli.js'

/** The environment of a clean shell: our own HOME, no PAYCTL_* or npm_* variables. */
export function cleanEnv(home: string, path: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [k, v] of Object.entries(process.env)) {
    if (!k.startsWith('PAYCTL_') && !k.toLowerCase().startsWith('npm_') && k !== 'INIT_CWD') env[k] = v
  }
  return {...env, HOME: home, PATH: path, NO_COLOR: '1'}
}

/** The npm cache of the user running the tests: what a clean HOME installs from, offline. */
export const npmCache = (fallbackHome: string) =>
  process.env.npm_config_cache ?? join(process.env.HOME ?? fallbackHome, '.npm')

/**
 * Run `fn` with the build copied to dist/ as npm packs it (it packs no link: `npm pack` does this
 * in prepack and postpack, which a pack with --ignore-scripts skips, the build being there already).
 */
export function asPacked<T>(fn: () => T): T {
  execFileSync(process.execPath, [join(ROOT, 'scripts/build.ts'), '--pack'], {cwd: ROOT})
  try {
    return fn()
  } finally {
    execFileSync(process.execPath, [join(ROOT, 'scripts/build.ts'), '--unpack'], {cwd: ROOT})
  }
}

/** Pack the build as it is into `dir` (`npm test` builds first); returns the tarball's file name. */
export function packInto(dir: string): string {
  asPacked(() =>
    execFileSync('npm', ['pack', '--ignore-scripts', '--pack-destination', dir], {
      cwd: ROOT,
      stdio: 'ignore',
    }),
  )
  return readdirSync(dir).find((f) => f.endsWith('.tgz'))!
}
