import {execFileSync, spawn, spawnSync} from 'node:child_process'
import {copyFileSync, mkdtempSync, readFileSync, rmSync, statSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {delimiter, join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {cliEnv, ROOT} from '../helpers/cli.js'
import {olderNode} from '../helpers/older-node.js'
import {asPacked, cleanEnv, npmCache, packInto} from '../helpers/release.js'
import {startSandboxProcess} from '../helpers/sandbox.js'

const OLD_NODE = olderNode()
const temps: string[] = []
const temp = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  temps.push(dir)
  return dir
}
afterAll(() => {
  for (const dir of temps) rmSync(dir, {recursive: true, force: true})
})

describe('installing payctl', () => {
  it('npm builds only for npm ci or npm install in the checkout, not for other commands that run prepare', () => {
    const before = statSync(join(ROOT, 'dist/bundle/main.js')).mtimeMs
    for (const env of [
      {npm_command: 'exec', INIT_CWD: ROOT}, // npx payctl inside the checkout
      {npm_command: 'link', INIT_CWD: ROOT},
      {npm_command: 'install', npm_config_global: 'true', INIT_CWD: ROOT}, // npm install -g .
      {npm_command: 'install', INIT_CWD: tmpdir()}, // npm install <this folder> from another project
    ]) {
      const out = execFileSync('npm', ['run', '--silent', 'prepare'], {
        cwd: ROOT,
        encoding: 'utf8',
        env: {...process.env, ...env},
      })
      expect(out).toContain('no build')
    }
    expect(statSync(join(ROOT, 'dist/bundle/main.js')).mtimeMs).toBe(before)
  })

  it('says nothing of a build on npm pack or npm publish, whose prepack has just built', () => {
    const before = statSync(join(ROOT, 'dist/bundle/main.js')).mtimeMs
    // As npm runs prepare for them (npm run would set npm_command to run-script).
    for (const command of ['pack', 'publish']) {
      const run = spawnSync(process.execPath, [join(ROOT, 'scripts/prepare.js')], {
        cwd: ROOT,
        encoding: 'utf8',
        env: {...process.env, npm_command: command, INIT_CWD: ROOT},
      })
      expect(run.status, run.stderr).toBe(0)
      expect(run.stdout + run.stderr, command).toBe('')
    }
    expect(statSync(join(ROOT, 'dist/bundle/main.js')).mtimeMs).toBe(before)
  })

  it('ships the built CLI and the Node 24 it runs on in the package', () => {
    const [packed] = JSON.parse(
      asPacked(() =>
        execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
          cwd: ROOT,
          encoding: 'utf8',
        }),
      ),
    ) as [{files: {path: string}[]}]
    const files = packed.files.map((f) => f.path)
    expect(files).toEqual(
      expect.arrayContaining(['bin/run.js', 'bin/node24.js', 'dist/bundle/main.js', 'dist/sandbox/index.js']),
    )
  })

  it('packs what an installed payctl needs, at most 8.9 MB unpacked: no source maps, a LICENSE, the docs and fixtures the help names', () => {
    const [packed] = JSON.parse(
      asPacked(() =>
        execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
          cwd: ROOT,
          encoding: 'utf8',
        }),
      ),
    ) as [{files: {path: string}[]; unpackedSize: number}]
    const files = packed.files.map((f) => f.path)
    expect(files.filter((f) => f.endsWith('.map'))).toEqual([])
    expect(files).toEqual(
      expect.arrayContaining([
        'LICENSE',
        'CHANGELOG.md',
        'SECURITY.md',
        'docs/seed.md',
        'examples/fixtures/shop.yaml',
      ]),
    )
    expect(packed.unpackedSize).toBeLessThanOrEqual(8.9e6)
  })

  it.runIf(OLD_NODE)(
    'the packed tarball installs on an older node with and without --allow-scripts, asking nothing of the user, and runs the sandbox',
    () => {
      const work = temp('payctl-allow-')
      const tarball = join(work, packInto(work))
      const pkg = JSON.parse(
        execFileSync('tar', ['-xzOf', tarball, 'package/package.json'], {encoding: 'utf8'}),
      )
      expect(pkg.scripts?.prepare).toBeUndefined()
      for (const allow of [[], ['--allow-scripts=payctl']]) {
        const prefix = join(work, `prefix${allow.length}`)
        const home = join(work, `home${allow.length}`)
        const env = cleanEnv(
          home,
          [join(prefix, 'bin'), join(OLD_NODE!, '..'), '/usr/bin', '/bin'].join(delimiter),
        )
        const install = spawnSync(
          'npm',
          ['install', '-g', '--prefer-offline', '--prefix', prefix, ...allow, tarball],
          {
            cwd: work,
            encoding: 'utf8',
            env: {...env, npm_config_cache: npmCache(home)},
            timeout: 150_000,
          },
        )
        const said = install.stdout + install.stderr
        expect(install.status, said).toBe(0)
        expect(said).not.toMatch(/allow-?scripts|install-scripts|EALLOWSCRIPTS/i)
        const run = (...args: string[]) =>
          spawnSync(join(prefix, 'bin', 'payctl'), args, {cwd: work, encoding: 'utf8', env, timeout: 30_000})
        expect(run('--version').stdout).toMatch(/^payctl\/\S+ linux-\S+ node-v2[4-9]\./)
        const started = run('sandbox', 'start', '--detach', '--data', ':memory:', '--port', '0', '--json')
        expect(started.status, started.stderr).toBe(0)
        expect(run('sandbox', 'stop').status).toBe(0)
      }
    },
    400_000,
  )

  it.skipIf(!OLD_NODE)(
    'bin/run.js started by an older node runs the command on the pinned Node 24 (node:sqlite works)',
    () => {
      const home = temp('payctl-home-')
      const env = {...cleanEnv(home, process.env.PATH ?? ''), PAYCTL_CONFIG_DIR: join(home, 'cfg')}
      const version = execFileSync(OLD_NODE!, [join(ROOT, 'bin/run.js'), '--version'], {
        encoding: 'utf8',
        env,
      })
      expect(version).toMatch(/node-v2[4-9]\./)
      const r = spawnSync(OLD_NODE!, [join(ROOT, 'bin/run.js'), 'sandbox', 'openapi'], {
        encoding: 'utf8',
        env,
      })
      expect(r.stderr).not.toContain('node:sqlite')
      expect(r.status).toBe(0)
    },
  )

  it('a global install of the packed tarball gives a payctl that starts the sandbox, with the machine’s own node', () => {
    const work = temp('payctl-pack-')
    const home = join(work, 'home')
    const prefix = join(work, 'prefix')
    const tarball = packInto(work)
    // Outside the checkout, so that nothing of it is on the way.
    const machinePath = [join(prefix, 'bin'), ...(OLD_NODE ? [join(OLD_NODE, '..')] : []), '/usr/bin', '/bin']
      .concat((process.env.PATH ?? '').split(delimiter))
      .join(delimiter)
    const env = cleanEnv(home, machinePath)
    execFileSync('npm', ['install', '-g', '--prefer-offline', '--prefix', prefix, join(work, tarball)], {
      cwd: work,
      env: {...env, npm_config_cache: npmCache(home)},
      stdio: 'ignore',
    })
    const payctl = join(prefix, 'bin', 'payctl')
    const run = (...args: string[]) =>
      spawnSync(payctl, args, {cwd: work, encoding: 'utf8', env, timeout: 30_000})
    const started = run('sandbox', 'start', '--detach', '--data', ':memory:', '--port', '0', '--json')
    expect(started.stderr).not.toContain('node:sqlite')
    expect(started.status).toBe(0)
    try {
      const user = run(
        'users',
        'create',
        '--email',
        'ada@example.test',
        '--first-name',
        'Ada',
        '--last-name',
        'L',
      )
      expect(user.status).toBe(0)
      expect(user.stdout.trim()).toMatch(/^usr_/)
    } finally {
      expect(run('sandbox', 'stop').status).toBe(0)
    }
  }, 180_000)

  it.runIf(OLD_NODE)(
    'the wrapper an older node runs passes a signal sent to it alone on to payctl, and exits with its status',
    async () => {
      const sandbox = await startSandboxProcess()
      const wrapper = spawn(OLD_NODE!, [join(ROOT, 'bin', 'run.js'), 'webhooks', 'listen', '--json'], {
        env: cliEnv(sandbox.configDir),
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      const exited = new Promise<number | null>((resolve) => wrapper.once('exit', (code) => resolve(code)))
      let payctlPid: number | undefined
      try {
        let out = ''
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`listen never got ready: ${out}`)), 20_000)
          wrapper.stdout!.on('data', (c: Buffer) => {
            out += c.toString()
            if (out.includes('"type":"ready"')) {
              clearTimeout(timer)
              resolve()
            }
          })
        })
        // The Node 24 process the wrapper started: payctl itself.
        payctlPid = Number(
          readFileSync(`/proc/${wrapper.pid}/task/${wrapper.pid}/children`, 'utf8').trim().split(' ')[0],
        )
        expect(payctlPid).toBeGreaterThan(0)
        wrapper.kill('SIGINT') // to the wrapper alone, as `kill -INT <pid>` does
        const code = await Promise.race([
          exited,
          new Promise((r) => setTimeout(() => r('still running'), 15_000)),
        ])
        expect(code).toBe(0)
        expect(() => process.kill(payctlPid!, 0)).toThrow()
      } finally {
        wrapper.kill('SIGKILL')
        if (payctlPid) {
          try {
            process.kill(payctlPid, 'SIGKILL')
          } catch {}
        }
        await sandbox.stop()
      }
    },
    60_000,
  )

  it.runIf(OLD_NODE)(
    'npm ci on a machine whose own node is older says nothing of engines',
    () => {
      const work = temp('payctl-ci-')
      for (const file of ['package.json', 'package-lock.json', '.npmrc'])
        copyFileSync(join(ROOT, file), join(work, file))
      const env = cleanEnv(
        join(work, 'home'),
        [join(OLD_NODE!, '..'), ...(process.env.PATH ?? '').split(delimiter)].join(delimiter),
      )
      const r = spawnSync('npm', ['ci', '--dry-run', '--ignore-scripts', '--prefer-offline'], {
        cwd: work,
        encoding: 'utf8',
        env: {
          ...env,
          npm_config_cache: npmCache(work),
        },
        timeout: 60_000,
      })
      expect(r.status, r.stderr).toBe(0)
      expect(r.stdout + r.stderr).not.toContain('EBADENGINE')
    },
    90_000,
  )
})
