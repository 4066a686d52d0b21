import {mkdirSync, readdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, expect, test} from 'vitest'
import {ProfileStore, saveLocalProfile} from '../../src/core/index.js'
import {type Cli, runCli, tempConfigDir} from '../helpers/cli.js'
import {type CustomerRecords, customerRecords} from '../helpers/customer-records.js'
import {type SandboxProcess, startSandboxProcess} from '../helpers/sandbox.js'
import {comparable, storyOf} from '../helpers/story-import.js'

/**
 * `payctl sandbox import` as a process between two sandbox processes on 127.0.0.1: the customer of
 * a support ticket (two wallets, a card top-up partly refunded, a returned ACH, a transfer) is
 * the same story in the target, and nothing the customer is reaches the target's data file.
 */
let source: SandboxProcess
let target: SandboxProcess
let temp: {dir: string; cleanup: () => void}
let records: CustomerRecords
let cli: Cli

beforeAll(async () => {
  temp = tempConfigDir()
  mkdirSync(join(temp.dir, 'data'))
  source = await startSandboxProcess(['--settle-after', '1h'])
  target = await startSandboxProcess([], {configDir: temp.dir, data: join(temp.dir, 'data', 'target.db')})
  // The source as a profile beside the target's own (`local`, the current one).
  const auth = new ProfileStore(source.configDir).read().profiles.local!.auth!
  await saveLocalProfile(new ProfileStore(temp.dir), 'source', source.url, auth)
  cli = (...args) => runCli(args, {configDir: temp.dir, timeoutMs: 60_000})
  records = await customerRecords((...args) =>
    runCli([...args, '--profile', 'source'], {configDir: temp.dir}),
  )
}, 120_000)
afterAll(async () => {
  await target?.stop()
  await source?.stop()
  temp?.cleanup()
})

test('a customer imported by a payctl process reads the same in the target sandbox process', async () => {
  const run = await cli('sandbox', 'import', '--from', 'source', '--user', 'Ada@Example.test', '--json')
  expect(run.exitCode, run.stderr).toBe(0)
  const newAda = run.json<{ids: Record<string, string>}>().ids['users.customer']!
  const there = await storyOf(cli, ['--profile', 'source'], records.ada)
  const here = await storyOf(cli, ['--profile', 'local'], newAda)
  expect(here.timeline.length).toBeGreaterThanOrEqual(5)
  expect(comparable(here)).toEqual(comparable(there))
  const files = readdirSync(join(temp.dir, 'data')).map((f) =>
    readFileSync(join(temp.dir, 'data', f)).toString('latin1'),
  )
  for (const secret of ['Ada@Example.test', 'ada@example.test', 'Lovelace', records.ada])
    for (const file of files) expect(file.includes(secret), secret).toBe(false)
})
