import {mkdirSync, readdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, expect, test} from 'vitest'
import {ProfileStore, saveLocalProfile} from '../../src/core/index.js'
import {SandboxClient} from '../../src/core/sandbox-client.js'
import {type Cli, runCli, tempConfigDir} from '../helpers/cli.js'
import {type CustomerRecords, customerRecords} from '../helpers/customer-records.js'
import {type SandboxProcess, startSandboxProcess} from '../helpers/sandbox.js'
import {comparable, storyOf} from '../helpers/story-import.js'
import {converse, hasScript} from '../helpers/terminal.js'

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

test.runIf(hasScript)(
  'a production source asks in a terminal what it will read, and reads nothing when told no',
  async () => {
    // The source under a production profile, as `auth login --env production` would leave it.
    const auth = new ProfileStore(source.configDir).read().profiles.local!.auth!
    await new ProfileStore(temp.dir).update((file) => {
      file.profiles.prod = {environment: 'production', baseUrl: source.url, auth}
    })
    const log = new SandboxClient({url: source.url, credentials: source.credentials})
    const {cursor} = await log.api.call('listRequestLog', {query: {limit: 1}})
    const requests = async () =>
      (await log.api.call('listRequestLog', {query: {cursor, limit: 100}})).entries
        .map((e) => `${e.method} ${e.path.split('?')[0]}`)
        .filter((line) => !line.includes('/_sandbox/'))
    const args = ['sandbox', 'import', '--from', 'prod', '--user', records.ada]
    const no = await converse(args, [[/\? .*\(y\/N\)/, 'n\r']], {configDir: temp.dir})
    expect(no.screen).toContain(
      `read a customer's story, to import it redacted, in production (${source.url})?`,
    )
    expect(no.code).toBe(2)
    expect(await requests()).toEqual([])
    expect(no.screen).toContain('CANCELLED')
    // Told yes, it goes on to read (here the production guard of test credentials stops it).
    const yes = await converse(args, [[/\? .*\(y\/N\)/, 'y\r']], {configDir: temp.dir})
    expect(yes.screen).toContain('Reading the story from prod')
    expect(yes.screen).not.toContain('CANCELLED')
  },
)
