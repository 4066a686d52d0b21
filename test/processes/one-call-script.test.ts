import {globSync, readFileSync, statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {cliFor, runCli} from '../helpers/cli.js'
import {type LocalSandbox, startLocalSandbox} from '../helpers/local-sandbox.js'

/**
 * bin/run.js's fast path runs a one-call command from a script of the bundle's own with a V8 code
 * cache kept after a run, beside Node's compile cache (src/cli/fast-path/one-call-script.ts). The
 * cache only saves time: a run prints the same with it, without it, and with a damaged one, which
 * the run replaces; a run of another kind (another command, other flags) keeps a cache that lists
 * both.
 */

let sandbox: LocalSandbox
let wallet: string
beforeAll(async () => {
  sandbox = await startLocalSandbox()
  const cli = cliFor(sandbox)
  // In this process: this logs in, and keeps the token the fast path sends.
  const user = await cli(
    'users',
    'create',
    '--email',
    'cache@example.test',
    '--first-name',
    'C',
    '--last-name',
    'A',
  )
  const made = await cli('wallets', 'create', '--user', user.stdout.trim(), '--currency', 'USD')
  expect(made.exitCode, made.stderr).toBe(0)
  wallet = made.stdout.trim()
})
afterAll(() => sandbox?.stop())

const get = (cacheDir: string, ...more: string[]) =>
  runCli(['wallets', 'get', wallet, ...more], {
    configDir: sandbox.configDir,
    env: {PAYCTL_CACHE_DIR: cacheDir},
  })
const cacheFiles = (cacheDir: string) => globSync('compile-cache/**/fast-call-*.v8', {cwd: cacheDir})
const printed = (r: {exitCode: number; stdout: string; stderr: string}) => ({
  exitCode: r.exitCode,
  stdout: r.stdout,
  stderr: r.stderr,
})
const kindsOf = (file: string) => readFileSync(file, 'latin1').split('\n', 1)[0]!.split('\t')

describe.concurrent("the one-call path's code cache", () => {
  it('is kept by the first run, used by the next, widened by another kind of run', async () => {
    const cacheDir = join(sandbox.configDir, 'cache')
    const first = await get(cacheDir)
    expect(first.exitCode, first.stderr).toBe(0)
    expect(first.stdout).toContain(wallet)
    const [kept] = cacheFiles(cacheDir)
    expect(kept).toBeDefined()
    const file = join(cacheDir, kept!)
    expect(kindsOf(file)).toEqual(['wallets:get'])
    const made = statSync(file).mtimeMs

    const second = await get(cacheDir)
    expect(printed(second)).toEqual(printed(first))
    expect(statSync(file).mtimeMs).toBe(made)

    const json = await get(cacheDir, '--json')
    expect(json.exitCode, json.stderr).toBe(0)
    expect(JSON.parse(json.stdout)).toMatchObject({id: wallet})
    expect(kindsOf(file)).toEqual(['wallets:get', 'wallets:get --json'])
    expect(cacheFiles(cacheDir)).toEqual([kept])
  })

  it('is replaced when damaged, and the run prints the same', async () => {
    const cacheDir = join(sandbox.configDir, 'cache-damaged')
    const first = await get(cacheDir)
    expect(first.exitCode, first.stderr).toBe(0)
    const file = join(cacheDir, cacheFiles(cacheDir)[0]!)
    const bytes = readFileSync(file)
    // No first line at all; then V8's data damaged behind a first line that claims this kind.
    for (const damage of [
      Buffer.alloc(bytes.length, 7),
      Buffer.concat([Buffer.from('wallets:get\n'), Buffer.alloc(bytes.length, 7)]),
    ]) {
      writeFileSync(file, damage)
      const damaged = await get(cacheDir)
      expect(printed(damaged)).toEqual(printed(first))
      expect(readFileSync(file).equals(damage)).toBe(false)
      expect(kindsOf(file)).toEqual(['wallets:get'])
    }
  })

  it('is neither kept nor needed with the compile cache off', async () => {
    const cacheDir = join(sandbox.configDir, 'cache-off')
    const off = await runCli(['wallets', 'get', wallet], {
      configDir: sandbox.configDir,
      env: {PAYCTL_CACHE_DIR: cacheDir, NODE_DISABLE_COMPILE_CACHE: '1'},
    })
    expect(off.exitCode, off.stderr).toBe(0)
    expect(off.stdout).toContain(wallet)
    expect(cacheFiles(cacheDir)).toEqual([])
  })
})
