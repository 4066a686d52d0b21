import {execFileSync, spawnSync} from 'node:child_process'
import {existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {ROOT} from '../helpers/cli.js'

const work = mkdtempSync(join(tmpdir(), 'payctl-archive-test-'))
afterAll(() => rmSync(work, {recursive: true, force: true}))

/**
 * A PATH with only what the launcher itself uses (sh, readlink, dirname): this machine may have a
 * node in /usr/bin, which the archive must not need.
 */
function bareTools(): string {
  const tools = join(work, 'tools')
  mkdirSync(tools)
  for (const tool of ['sh', 'readlink', 'dirname']) {
    const found = execFileSync('sh', ['-c', `command -v ${tool}`], {encoding: 'utf8'}).trim()
    symlinkSync(found, join(tools, tool))
  }
  return tools
}

describe('the standalone archive for linux-x64', () => {
  it.runIf(process.platform === 'linux' && process.arch === 'x64')(
    'runs payctl and the sandbox, from a symbolic link to its launcher, with no node on the PATH',
    () => {
      const made = spawnSync(process.execPath, [join(ROOT, 'scripts/archive.ts'), '--out', work], {
        cwd: ROOT,
        encoding: 'utf8',
        timeout: 150_000,
      })
      expect(made.status, made.stderr).toBe(0)
      const archive = join(work, 'payctl-0.1.0-linux-x64.tar.gz')
      console.log(`archive: ${(statSync(archive).size / 1e6).toFixed(1)} MB`)
      const installed = join(work, 'opt')
      mkdirSync(installed)
      execFileSync('tar', ['-xzf', archive, '-C', installed])
      for (const file of ['bin/payctl', 'lib/node', 'lib/bin/run.js', 'lib/dist/bundle/main.js'])
        expect(existsSync(join(installed, 'payctl', file)), file).toBe(true)
      // The bundles carry every dependency but zod (the library's types); no Node package beside lib/node.
      expect(
        readdirSync(join(installed, 'payctl/lib/node_modules')).filter((d) => !d.startsWith('.')),
      ).toEqual(['zod'])

      // As a user links it into a folder on their PATH (~/.local/bin, say).
      const tools = bareTools()
      symlinkSync(join(installed, 'payctl/bin/payctl'), join(tools, 'payctl'))
      const home = join(work, 'home')
      mkdirSync(home)
      const env = {PATH: tools, HOME: home, PAYCTL_CONFIG_DIR: join(home, 'cfg'), NO_COLOR: '1'}
      const sh = (script: string) =>
        spawnSync(join(tools, 'sh'), ['-c', script], {cwd: home, encoding: 'utf8', env, timeout: 30_000})

      expect(sh('command -v node').status).not.toBe(0)
      const version = sh('payctl --version')
      expect(version.stdout, version.stderr).toMatch(/^payctl\/0\.1\.0 linux-x64 node-v24\./)
      const started = sh('payctl sandbox start --detach --data :memory: --port 0 --json')
      expect(started.status, started.stderr).toBe(0)
      expect(JSON.parse(started.stdout).url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
      try {
        const user = sh('payctl users create --email ada@example.test --first-name Ada --last-name L')
        expect(user.status, user.stderr).toBe(0)
        expect(user.stdout.trim()).toMatch(/^usr_/)
      } finally {
        const stopped = sh('payctl sandbox stop')
        expect(stopped.status, stopped.stderr).toBe(0)
      }
    },
    200_000,
  )
})
