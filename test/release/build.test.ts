import {execFile, spawn} from 'node:child_process'
import {existsSync, readlinkSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {ROOT} from '../helpers/cli.js'

const BIN = join(ROOT, 'bin', 'run.js')

/** payctl run as a user runs it, on the build dist/ names at that moment: its exit status and stderr. */
const payctl = (...args: string[]) =>
  new Promise<{status: number; stderr: string}>((resolve) => {
    execFile(process.execPath, [BIN, ...args], {env: {...process.env, NO_COLOR: '1'}}, (err, _out, stderr) =>
      resolve({status: err === null ? 0 : typeof err.code === 'number' ? err.code : 1, stderr}),
    )
  })

describe('npm run build', () => {
  it('replaces the build in one step: a payctl started meanwhile runs the old build or the new one, whole', async () => {
    const before = readlinkSync(join(ROOT, 'dist'))
    const build = spawn('npm', ['run', 'build'], {cwd: ROOT, stdio: 'ignore'})
    const built = new Promise<number | null>((resolve) => build.once('exit', resolve))
    let done = false
    void built.then(() => {
      done = true
    })
    const runs: {status: number; stderr: string}[] = []
    // Each a command of the full CLI (help of a topic, kept or not) and one of the fast path.
    while (!done) {
      for (const args of [
        ['wallets', '--help'],
        ['sandbox', 'openapi'],
      ])
        runs.push(await payctl(...args))
    }
    expect(await built).toBe(0)
    expect(runs.length).toBeGreaterThan(2)
    expect(runs.filter((r) => r.status !== 0)).toEqual([])
    // dist/ is a link to the new build; the previous one stays for what still runs from it.
    const after = readlinkSync(join(ROOT, 'dist'))
    expect(after).not.toBe(before)
    expect(existsSync(join(ROOT, before))).toBe(true)
    expect((await payctl('wallets', '--help')).status).toBe(0)
  }, 300_000)
})
