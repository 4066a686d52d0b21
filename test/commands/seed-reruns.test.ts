import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {type Cli, cliFor, payctl, ROOT, tempConfigDir} from '../helpers/cli.js'
import {type LocalSandbox, startLocalSandbox} from '../helpers/local-sandbox.js'
import {freePort} from '../helpers/webhooks-tcp-proxy.js'

/**
 * `payctl seed` with several files, its progress lines, and what a rerun does after a failure or
 * against a sandbox started afresh. Its progress bar in a terminal is in test/processes/seed.test.ts.
 */
let sandbox: LocalSandbox
let cli: Cli
const file = (name: string, text: string) => {
  const path = join(sandbox.configDir, name)
  writeFileSync(path, text)
  return path
}
type Ids = Record<string, Record<string, {id: string}>>
interface JsonError {
  error: {code: string; message: string; suggestions?: string[]}
}

beforeAll(async () => {
  sandbox = await startLocalSandbox()
  cli = cliFor(sandbox, {timeoutMs: 60_000})
})
afterAll(async () => {
  await sandbox.stop()
})

describe('payctl seed with several files, and its progress', () => {
  it('seeds several files, or a quoted glob, into one document of ids', async () => {
    file(
      'multi-a.yaml',
      'name: multi-a\nusers:\n  ann: {email: ann@example.test, first_name: Ann, last_name: A}\n',
    )
    file(
      'multi-b.yaml',
      'name: multi-b\nusers:\n  ben: {email: ben@example.test, first_name: Ben, last_name: B}\n',
    )
    const r = await cli(
      'seed',
      join(sandbox.configDir, 'multi-a.yaml'),
      join(sandbox.configDir, 'multi-b.yaml'),
      '--json',
    )
    expect(r.exitCode, r.stderr).toBe(0)
    const ids = r.json<Ids>()
    expect(ids.users!.ann!.id).toMatch(/^usr_/)
    expect(ids.users!.ben!.id).toMatch(/^usr_/)
    const glob = await cli('seed', join(sandbox.configDir, 'multi-*.yaml'), '--json')
    expect(glob.exitCode, glob.stderr).toBe(0)
    expect(glob.json<Ids>()).toEqual(ids) // the same records: nothing made twice
  })

  it('refuses, before sending anything, two files that use one name', async () => {
    const a = file(
      'clash-a.yaml',
      'name: clash-a\nusers:\n  same: {email: s1@example.test, first_name: S, last_name: One}\n',
    )
    const b = file(
      'clash-b.yaml',
      'name: clash-b\nusers:\n  same: {email: s2@example.test, first_name: S, last_name: Two}\n',
    )
    const r = await cli('seed', a, b)
    expect(r.stderr).toContain('INVALID_FIXTURE')
    expect(r.stderr).toContain('users.same')
    expect(r.exitCode).toBe(2)
  })

  it('prints progress lines on stderr under --json, where stdout holds only the ids', async () => {
    const path = file(
      'progress.yaml',
      'name: progress\nusers:\n  p:\n    count: 30\n    email: p{{n}}@example.test\n    first_name: P\n    last_name: N{{n}}\n',
    )
    const r = await cli('seed', path, '--json')
    expect(r.exitCode, r.stderr).toBe(0)
    expect(r.stderr).toMatch(/^Seeding \d+\/30 /m)
    expect(r.stderr).toMatch(/^Seeding 30\/30 /m)
    expect(r.json<Ids>()).toHaveProperty('users')
  })
})

describe('payctl seed after a failure', () => {
  const users = (tag: string) =>
    `users:\n  a: {email: a-${tag}@example.test, first_name: A, last_name: A}\n  b: {email: b-${tag}@example.test, first_name: B, last_name: B}\n`

  it('WALLET_EXISTS: the rerun says the same and what to change; the fixed fixture then finishes, with or without --fresh', async () => {
    for (const fresh of [false, true]) {
      const tag = fresh ? 'wf' : 'w'
      // The second wallet takes its currency from the first at run time: only the service can refuse it.
      const broken = `name: ${tag}\n${users(tag)}wallets:\n  w1: {user: "\${users.a.id}", currency: USD}\n  w2: {user: "\${users.a.id}", currency: "\${wallets.w1.currency}"}\n`
      const path = file(`${tag}.yaml`, broken)
      for (const attempt of [1, 2]) {
        const r = await cli('seed', path, '--json')
        const {error} = r.json<JsonError>()
        expect(error.code, `attempt ${attempt}`).toBe('WALLET_EXISTS')
        expect(error.message).toContain('wallets.w2')
        expect(error.suggestions?.join(' ')).toContain('another currency or another user')
        expect(r.exitCode).toBe(1)
      }
      writeFileSync(path, broken.replace('currency: "${wallets.w1.currency}"', 'currency: EUR'))
      const fixed = await cli('seed', path, '--json', ...(fresh ? ['--fresh'] : []))
      expect(fixed.exitCode, fixed.stdout + fixed.stderr).toBe(0)
      const ids = fixed.json<Ids>()
      const w1 = await cli('wallets', 'get', ids.wallets!.w1!.id, '--json')
      const w2 = await cli('wallets', 'get', ids.wallets!.w2!.id, '--json')
      expect(w1.json()).toMatchObject({currency: 'USD', userId: ids.users!.a!.id})
      expect(w2.json()).toMatchObject({currency: 'EUR', userId: ids.users!.a!.id})
    }
  })

  it('INSUFFICIENT_FUNDS: the rerun says what to change; a lower amount then finishes, with or without --fresh', async () => {
    for (const fresh of [false, true]) {
      const tag = fresh ? 'if' : 'i'
      const broken = `name: ${tag}\n${users(tag)}wallets:\n  src: {user: "\${users.a.id}", currency: USD, initial_balance: 10.00USD}\n  dst: {user: "\${users.b.id}", currency: USD}\ntransactions:\n  t: {method: wallet, amount: 50.00USD, from: "\${wallets.src.id}", to: "\${wallets.dst.id}"}\n`
      const path = file(`${tag}.yaml`, broken)
      for (const attempt of [1, 2]) {
        const r = await cli('seed', path, '--json')
        const {error} = r.json<JsonError>()
        expect(error.code, `attempt ${attempt}`).toBe('INSUFFICIENT_FUNDS')
        expect(error.suggestions?.join(' ')).toContain('lower its amount')
        expect(r.exitCode).toBe(1)
      }
      writeFileSync(path, broken.replace('amount: 50.00USD', 'amount: 5.00USD'))
      const fixed = await cli('seed', path, '--json', ...(fresh ? ['--fresh'] : []))
      expect(fixed.exitCode, fixed.stdout + fixed.stderr).toBe(0)
      const src = await cli('wallets', 'get', fixed.json<Ids>().wallets!.src!.id, '--json')
      expect(src.json()).toMatchObject({balance: {available: 500}})
    }
  })

  it('INSUFFICIENT_FUNDS fixed by a larger initial balance: told to start over, and reset with --fresh finishes', async () => {
    const broken = `name: ib\n${users('ib')}wallets:\n  src: {user: "\${users.a.id}", currency: USD, initial_balance: 10.00USD}\n  dst: {user: "\${users.b.id}", currency: USD}\ntransactions:\n  t: {method: wallet, amount: 50.00USD, from: "\${wallets.src.id}", to: "\${wallets.dst.id}"}\n`
    const path = file('ib.yaml', broken)
    expect((await cli('seed', path)).exitCode).toBe(1)
    writeFileSync(path, broken.replace('initial_balance: 10.00USD', 'initial_balance: 100.00USD'))
    // Without --fresh the wallet made before is kept as it was: the answer says so.
    const kept = await cli('seed', path, '--json')
    expect(kept.json<JsonError>().error.code).toBe('INSUFFICIENT_FUNDS')
    expect(kept.json<JsonError>().error.suggestions?.join(' ')).toContain('payctl sandbox reset')
    expect((await cli('sandbox', 'reset', '--yes')).exitCode).toBe(0)
    const fixed = await cli('seed', path, '--json', '--fresh')
    expect(fixed.exitCode, fixed.stdout + fixed.stderr).toBe(0)
    const src = await cli('wallets', 'get', fixed.json<Ids>().wallets!.src!.id, '--json')
    expect(src.json()).toMatchObject({balance: {available: 5000}})
  })
})

describe('payctl seed against a sandbox started afresh', () => {
  it('does not take the journal of an earlier sandbox on the same port for records of the new one', async () => {
    const config = tempConfigDir()
    const port = await freePort()
    const fixture = join(ROOT, 'examples/fixtures/shop.yaml')
    const run = () => payctl(['seed', fixture, '--json'], {configDir: config.dir, timeoutMs: 60_000})
    try {
      const first = await startLocalSandbox({port}, {configDir: config.dir})
      const before = await run()
      await first.stop()
      const second = await startLocalSandbox({port}, {configDir: config.dir})
      try {
        const after = await run()
        expect(after.exitCode, after.stderr).toBe(0)
        const id = after.json<Ids>().wallets!.alice_usd!.id
        expect(id).not.toBe(before.json<Ids>().wallets!.alice_usd!.id)
        const got = await payctl(['wallets', 'get', id, '--json'], {configDir: config.dir})
        expect(got.exitCode, got.stderr).toBe(0)
      } finally {
        await second.stop()
      }
    } finally {
      config.cleanup()
    }
  })
})
