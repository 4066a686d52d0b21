import {readdirSync, readFileSync, statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {type Cli, cliFor} from '../helpers/cli.js'
import {type LocalSandbox, startLocalSandbox} from '../helpers/local-sandbox.js'
import {type Receiver, startReceiver} from '../helpers/webhooks-receiver.js'

/**
 * A seeded webhook registration's signing secret: given once, by the run that registers it, in
 * its --json output and --output file, so that a receiver verifies the deliveries from the start;
 * never in the human output, the journal, the audit log or --debug.
 */
let sandbox: LocalSandbox
let cli: Cli
let receiver: Receiver
let secret = ''
type Ids = Record<string, Record<string, {id: string; secret?: string} | {id: string; secret?: string}[]>>

/** Every file under the config dir (journal, audit log, profiles…) as one text. */
function configDirText(dir: string): string {
  return readdirSync(dir, {recursive: true, withFileTypes: true})
    .filter((e) => e.isFile())
    .map((e) => readFileSync(join(e.parentPath, e.name), 'utf8'))
    .join('\n')
}

const fixture = (name: string, url: string, extra = '') => {
  const path = join(sandbox.configDir, `${name}.yaml`)
  writeFileSync(
    path,
    `name: ${name}
webhooks:
  app: {url: "${url}", events: [wallet.created]}
users:
  ann: {email: ${name}@example.test, first_name: Ann, last_name: A}
wallets:
  ann_usd: {user: "\${users.ann.id}", currency: USD, after: [webhooks.app]}
${extra}`,
  )
  return path
}

beforeAll(async () => {
  sandbox = await startLocalSandbox({webhookRetries: 'fast'})
  cli = cliFor(sandbox)
  // Answers 401 to a delivery its secret does not verify, as the spec's receivers do.
  receiver = await startReceiver({secret: () => secret})
})
afterAll(async () => {
  await receiver?.close()
  await sandbox?.stop()
})

describe('payctl seed and webhook signing secrets', () => {
  it('gives each registration it makes its secret under --json, one a receiver verifies deliveries with', async () => {
    const path = fixture('signed', receiver.url)
    const r = await cli('seed', path, '--json', '--debug')
    expect(r.exitCode, r.stderr).toBe(0)
    const hook = r.json<Ids>().webhooks!.app as {id: string; secret: string}
    expect(hook.id).toMatch(/^whk_/)
    expect(hook.secret).toMatch(/^whsec_[\w-]{32}$/)
    secret = hook.secret
    // The wallet was made after the registration: its event is delivered, and verified.
    const [delivery] = await receiver.waitFor(1)
    expect(delivery!.json.event).toBe('wallet.created')
    expect(delivery!.status).toBe(200)
    // Only the result carries it: not --debug, nor the journal or the audit log.
    expect(r.stderr).not.toContain(secret)
    expect(configDirText(sandbox.configDir)).not.toContain(secret)

    // A rerun made nothing, so it has no secret to give: the id alone.
    const again = await cli('seed', path, '--json')
    expect(again.json<Ids>().webhooks!.app).toEqual({id: hook.id})
  })

  it('says in human output where the secret is, and prints none', async () => {
    const path = fixture('human', 'https://app.example.test/hooks')
    const r = await cli('seed', path)
    expect(r.exitCode, r.stderr).toBe(0)
    const id = (await cli('webhooks', 'list', '--json'))
      .json<{webhooks: {id: string; url: string}[]}>()
      .webhooks.find((w) => w.url === 'https://app.example.test/hooks')!.id
    expect(r.stdout + r.stderr).not.toMatch(/whsec_/)
    expect(r.stderr).toContain('--json output or --output file of the run that registers it')
    expect(r.stderr).toContain(`payctl webhooks rotate-secret ${id}   # webhooks.app`)
  })

  it('writes the secrets to --output, readable by its owner only, and says so', async () => {
    const path = fixture('output', 'https://output.example.test/hooks')
    const ids = join(sandbox.configDir, 'ids.json')
    const r = await cli('seed', path, '--output', ids)
    expect(r.exitCode, r.stderr).toBe(0)
    const written = JSON.parse(readFileSync(ids, 'utf8')) as Ids
    const hook = written.webhooks!.app as {id: string; secret: string}
    expect(hook.secret).toMatch(/^whsec_/)
    expect(statSync(ids).mode & 0o777).toBe(0o600)
    expect(r.stdout + r.stderr).not.toContain(hook.secret)
    expect(r.stderr).toContain(`is in ${ids} (webhooks.app.secret)`)
    // The one the sandbox signs with: the registration shows its last four characters.
    const shown = await cli('webhooks', 'get', hook.id, '--json')
    expect(shown.json<{secretLast4: string}>().secretLast4).toBe(hook.secret.slice(-4))
  })

  it('gives each registration of a counted entry its own secret', async () => {
    const path = join(sandbox.configDir, 'counted.yaml')
    writeFileSync(
      path,
      'name: counted\nwebhooks:\n  hook:\n    count: 2\n    url: https://h{{n}}.example.test/hooks\n    events: [transaction.completed]\n',
    )
    const r = await cli('seed', path, '--json')
    expect(r.exitCode, r.stderr).toBe(0)
    const hooks = r.json<Ids>().webhooks!.hook as {id: string; secret: string}[]
    expect(hooks).toHaveLength(2)
    expect(hooks.map((h) => h.secret)).toEqual([
      expect.stringMatching(/^whsec_/),
      expect.stringMatching(/^whsec_/),
    ])
    expect(hooks[0]!.secret).not.toBe(hooks[1]!.secret)
  })
})
