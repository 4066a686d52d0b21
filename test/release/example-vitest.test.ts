import {spawnSync} from 'node:child_process'
import {cpSync, mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {delimiter, join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {ROOT} from '../helpers/cli.js'
import {olderNode} from '../helpers/older-node.js'
import {cleanEnv, npmCache, packInto} from '../helpers/release.js'

/**
 * examples/vitest, run as a user runs it: beside the tarball `npm pack` makes (its package.json
 * names `file:../../payctl-<version>.tgz`), installed from that tarball and the npm cache, then
 * `npm test`, on a PATH whose first `node` is the machine's own (older where it has one).
 */

const OLD_NODE = olderNode()
const work = mkdtempSync(join(tmpdir(), 'payctl-example-'))
afterAll(() => rmSync(work, {recursive: true, force: true}))

const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {version: string}).version
const EXAMPLE = join(ROOT, 'examples', 'vitest')

describe('examples/vitest', () => {
  it('names the tarball of this version, as npm pack names it', () => {
    const example = JSON.parse(readFileSync(join(EXAMPLE, 'package.json'), 'utf8')) as {
      devDependencies: Record<string, string>
    }
    expect(example.devDependencies.payctl).toBe(`file:../../payctl-${VERSION}.tgz`)
  })

  it('installs from the packed tarball and passes: one sandbox for the run, a partner for each file', () => {
    expect(packInto(work)).toBe(`payctl-${VERSION}.tgz`)
    const dir = join(work, 'examples', 'vitest')
    cpSync(EXAMPLE, dir, {recursive: true, filter: (path) => !path.includes('node_modules')})
    const path = [...(OLD_NODE ? [join(OLD_NODE, '..')] : []), '/usr/bin', '/bin']
      .concat((process.env.PATH ?? '').split(delimiter))
      .join(delimiter)
    const env = {
      ...cleanEnv(join(work, 'home'), path),
      npm_config_cache: npmCache(work),
      npm_config_update_notifier: 'false',
    }
    const npm = (...args: string[]) =>
      spawnSync('npm', args, {cwd: dir, encoding: 'utf8', env, timeout: 150_000})
    const installed = npm('install', '--prefer-offline', '--no-audit', '--no-fund')
    expect(installed.status, installed.stderr).toBe(0)
    // npm puts node_modules/.bin first on a script's PATH, where the Node 24 payctl depends on is:
    // vitest and the sandbox run on it, whatever `node` the machine has.
    const tested = npm('test')
    expect(tested.status, `${tested.stdout}\n${tested.stderr}`).toBe(0)
    expect(tested.stdout).toMatch(/Test Files\s+2 passed \(2\)/)
    expect(tested.stdout).not.toMatch(/failed/)

    // The machine's own older node, importing the installed package: the one line that says why not.
    if (OLD_NODE === undefined) return
    const loaded = spawnSync(
      OLD_NODE,
      [
        '--input-type=module',
        '--eval',
        "for (const m of ['payctl', 'payctl/testing']) await import(m).then(() => console.log(m, 'loaded'), (e) => console.log(m, e.message))",
      ],
      {cwd: dir, encoding: 'utf8', env},
    )
    const version = spawnSync(OLD_NODE, ['--version'], {encoding: 'utf8'}).stdout.trim()
    expect(loaded.stdout).toBe(
      `payctl loaded\npayctl/testing payctl/sandbox needs Node 24 or later (node:sqlite); this is Node ${version}. Run it on Node 24, or start the sandbox with the payctl command (payctl sandbox start), which brings its own.\n`,
    )
  }, 240_000)
})
