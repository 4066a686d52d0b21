import {mkdirSync, readdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, test} from 'vitest'
import {SandboxClient} from '../../src/core/sandbox-client.js'
import {type LocalSandbox, startLocalSandbox} from '../helpers/local-sandbox.js'
import {comparable, importedStory, SECRETS, storyOf} from '../helpers/story-import.js'
import {type SupportStory, supportStory} from '../helpers/support-story.js'

/**
 * `payctl sandbox import` from a second sandbox (the rich case): the support story's customer,
 * with a metadata value to hide, brought into a sandbox of its own.
 */
describe('sandbox import from a sandbox', () => {
  let source: SupportStory
  let target: LocalSandbox
  let dataDir: string

  beforeAll(async () => {
    source = await supportStory()
    await importedStory.enrich(source.cli, source.usd)
    dataDir = join(source.sandbox.configDir, 'target-data')
    mkdirSync(dataDir)
    target = await startLocalSandbox(
      {data: join(dataDir, 'target.db')},
      {configDir: source.sandbox.configDir, profile: 'target'},
    )
  }, 120_000)
  afterAll(async () => {
    await target?.stop()
    await source?.stop()
  })

  test('the target tells the same story, and the source saw only reads', async () => {
    const log = new SandboxClient({url: source.sandbox.url, credentials: source.sandbox.credentials})
    const before = await log.api.call('listRequestLog', {query: {limit: 1}})
    const run = await source.cli(
      'sandbox',
      'import',
      '--from',
      'local',
      '--into',
      'target',
      '--user',
      'ada@example.test',
      '--map',
      join(source.sandbox.configDir, 'map.json'),
      '--json',
    )
    expect(run.exitCode, run.stderr).toBe(0)
    const result = run.json<{ids: Record<string, string>; missing: unknown[]}>()
    expect(result.missing).toEqual([])
    const after = await log.api.call('listRequestLog', {query: {cursor: before.cursor, limit: 100}})
    const sent = after.entries.map((e) => `${e.method} ${e.path.split('?')[0]}`)
    expect(sent.length).toBeGreaterThan(5)
    for (const line of sent) expect(line).toMatch(/^(GET |POST \/v1\/auth\/token$)/)

    const newAda = result.ids['users.customer']!
    const map = JSON.parse(readFileSync(join(source.sandbox.configDir, 'map.json'), 'utf8'))
    expect(map[source.ada]).toBe(newAda)
    const there = await storyOf(source.cli, ['--profile', 'local'], source.ada)
    const here = await storyOf(source.cli, ['--profile', 'target'], newAda)
    expect(comparable(here)).toEqual(comparable(there))
    expect(here.user.email).toMatch(/^user-[0-9a-f]{10}@example\.test$/)

    // Nothing the customer is appears in the target's files, nor in what the command printed.
    const bytes = readdirSync(dataDir).map((f) => readFileSync(join(dataDir, f)).toString('latin1'))
    for (const secret of SECRETS) {
      for (const file of bytes) expect(file.includes(secret), secret).toBe(false)
      expect(run.stdout + run.stderr, secret).not.toContain(secret)
    }
  })
})
