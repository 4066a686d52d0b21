import {globSync, readFileSync, statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {ROOT, runCli, tempConfigDir} from '../helpers/cli.js'

/**
 * The bundle runs cli-table3 from a script of its own with a V8 code cache that the first table
 * keeps beside Node's compile cache (src/cli/rendering/table-script.ts). The cache only saves time: a run
 * prints the same with it, without it, and with a damaged one, which the next table replaces.
 */

const config = tempConfigDir()
afterAll(() => config.cleanup())
const fixture = join(ROOT, 'examples', 'fixtures', 'shop.yaml')
// `seed --dry-run` prints its plan as a table, and needs no service.
const plan = (env: Record<string, string>) =>
  runCli(['seed', fixture, '--dry-run'], {configDir: config.dir, env})
const cacheFiles = (cacheDir: string) => globSync('compile-cache/**/cli-table3-*.v8', {cwd: cacheDir})

// Each test with a cache of its own: both at once.
describe.concurrent("cli-table3's code cache", () => {
  it('is kept by the first table, used by the next, and a damaged one is replaced', async () => {
    const cacheDir = join(config.dir, 'cache')
    const first = await plan({PAYCTL_CACHE_DIR: cacheDir})
    expect(first.exitCode, first.stderr).toBe(0)
    expect(first.stdout).toMatch(/^WAVE +KIND +COUNT +RECORDS/)
    const [kept] = cacheFiles(cacheDir)
    expect(kept).toBeDefined()
    const file = join(cacheDir, kept!)
    const made = statSync(file).mtimeMs
    const bytes = readFileSync(file)

    const second = await plan({PAYCTL_CACHE_DIR: cacheDir})
    expect(second.stdout).toBe(first.stdout)
    expect(statSync(file).mtimeMs).toBe(made)

    writeFileSync(file, Buffer.alloc(bytes.length, 7))
    const damaged = await plan({PAYCTL_CACHE_DIR: cacheDir})
    expect({exitCode: damaged.exitCode, stdout: damaged.stdout, stderr: damaged.stderr}).toEqual({
      exitCode: 0,
      stdout: first.stdout,
      stderr: first.stderr,
    })
    expect(readFileSync(file).equals(Buffer.alloc(bytes.length, 7))).toBe(false)
    expect(cacheFiles(cacheDir)).toEqual([kept])
  })

  it('is neither kept nor needed with the compile cache off', async () => {
    const cacheDir = join(config.dir, 'cache-off')
    const [off, on] = await Promise.all([
      plan({PAYCTL_CACHE_DIR: cacheDir, NODE_DISABLE_COMPILE_CACHE: '1'}),
      plan({PAYCTL_CACHE_DIR: join(config.dir, 'cache-on')}),
    ])
    expect(off.exitCode, off.stderr).toBe(0)
    expect(off.stdout).toBe(on.stdout)
    expect(cacheFiles(cacheDir)).toEqual([])
  })
})
