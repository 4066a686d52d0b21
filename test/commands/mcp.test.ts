import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {Connections, connect, type PayctlClient} from '../../src/core/index.js'
import {cliFor} from '../helpers/cli.js'
import {type LocalSandbox, startLocalSandbox} from '../helpers/local-sandbox.js'
import {answerOf, callTool, type McpSession, mcpInProcess} from '../helpers/mcp.js'

/**
 * The tools of `payctl mcp` against a sandbox served in this process, through the SDK's own client
 * (connected in memory: the stdio process is test/processes/mcp.test.ts). What an agent relies on:
 * answers as the service gave them, errors it can act on, keys on every change, no credential.
 */

let sandbox: LocalSandbox
let connections: Connections
let api: PayctlClient
let session: McpSession

beforeAll(async () => {
  sandbox = await startLocalSandbox()
  connections = new Connections({})
  // Retries run their schedule without waiting it out.
  api = connect({configDir: sandbox.configDir, profile: 'local', connections, wait: () => Promise.resolve()})
  session = await mcpInProcess({profile: api.profile, client: api, allowMutations: false})
})
afterAll(async () => {
  await session?.close()
  await connections?.close()
  await sandbox?.stop()
})

const call = (name: string, args: Record<string, unknown> = {}) => callTool(session.client, name, args)
const answer = <T = Record<string, unknown>>(name: string, args: Record<string, unknown> = {}) =>
  answerOf<T>(session.client, name, args)
const textOf = (result: {content: unknown}) => JSON.stringify(result.content)

async function newUser(email: string): Promise<string> {
  const user = await answer<{id: string}>('create_user', {email, first_name: 'Ada', last_name: 'Lovelace'})
  return user.id
}

describe('payctl mcp against the local sandbox', () => {
  it('answers what the service answered, as structured content and as text, with its request id', async () => {
    const created = await call('create_user', {email: 'ada@example.test', first_name: 'Ada', last_name: 'L'})
    expect(created.isError).toBeUndefined()
    const id = created.structuredContent.id as string
    expect(id).toMatch(/^usr_/)
    expect(JSON.parse((created.content as {text: string}[])[0]!.text)).toMatchObject({
      id,
      email: 'ada@example.test',
    })
    expect(created._meta).toMatchObject({
      requestId: expect.stringMatching(/^req_/),
      status: 201,
      replayed: false,
    })
    expect(await answer('get_user', {id})).toMatchObject({id, email: 'ada@example.test'})
  })

  it('sends every change with an idempotency key, and repeats one given without applying it twice', async () => {
    const user = await newUser('keys@example.test')
    const first = await call('create_wallet', {userId: user, currency: 'USD', idempotencyKey: 'agent-key-1'})
    const again = await call('create_wallet', {userId: user, currency: 'USD', idempotencyKey: 'agent-key-1'})
    expect(again.structuredContent.id).toBe(first.structuredContent.id)
    expect(again._meta).toMatchObject({replayed: true})
    const generated = await call('create_wallet', {userId: user, currency: 'EUR'})
    const log = await answer<{entries: {idempotencyKey: string | null}[]}>('list_request_log', {
      request: generated._meta!.requestId,
    })
    expect(log.entries).toHaveLength(1)
    expect(log.entries[0]!.idempotencyKey).toMatch(/^[\x20-\x7e]{1,255}$/)
  })

  it('refuses malformed arguments naming the field, before anything is sent', async () => {
    const missing = await call('create_wallet', {currency: 'USD'})
    expect(missing.isError).toBe(true)
    expect(textOf(missing)).toContain('userId')
    const unknown = await call('get_user', {id: 'usr_x', colour: 'red'})
    expect(unknown.isError).toBe(true)
    expect(textOf(unknown)).toContain('colour')
    // An amount no JSON number holds exactly is refused, never rounded.
    const huge = await call('create_wallet', {userId: 'usr_x', currency: 'USD', initialBalance: 2 ** 60})
    expect(huge.isError).toBe(true)
    expect(textOf(huge)).toContain('initialBalance')
    // What the flat schema cannot say: a check across two fields of the body.
    const both = await call('sandbox_advance_clock', {seconds: 60, to: '2030-01-01T00:00:00Z'})
    expect(both.isError).toBe(true)
    expect(both.structuredContent).toMatchObject({error: {code: 'VALIDATION_ERROR'}})
    expect(textOf(both)).toContain('seconds')
  })

  it("gives a failure's code, message and request id, and keeps serving", async () => {
    const notFound = await call('get_user', {id: 'usr_000000000000000000000000'})
    expect(notFound.isError).toBe(true)
    expect(notFound.structuredContent.error).toMatchObject({
      code: 'NOT_FOUND',
      message: expect.any(String),
      requestId: expect.stringMatching(/^req_/),
    })
    expect(textOf(notFound)).toContain('NOT_FOUND')

    // A change whose outcome is unknown: the key to repeat it with, and the repeat applies it once.
    const user = await newUser('faults@example.test')
    const fault = await answer<{id: string}>('add_api_fault', {route: 'POST /v1/wallets', status: 500})
    const failed = await call('create_wallet', {userId: user, currency: 'GBP'})
    expect(failed.isError).toBe(true)
    const error = failed.structuredContent.error as {code: string; details: {idempotencyKey: string}}
    expect(error.code).toBe('INTERNAL_ERROR')
    expect(textOf(failed)).toContain(error.details.idempotencyKey)
    await answer('clear_faults')
    expect((await answer<{faults: unknown[]}>('list_faults')).faults).toEqual([])
    expect(fault.id).toMatch(/^flt_/)
    const repeated = await answer<{id: string}>('create_wallet', {
      userId: user,
      currency: 'GBP',
      idempotencyKey: error.details.idempotencyKey,
    })
    const wallets = await answer<{wallets: {id: string; currency: string}[]}>('list_wallets', {userId: user})
    expect(wallets.wallets.filter((w) => w.currency === 'GBP').map((w) => w.id)).toEqual([repeated.id])
  })

  it('never answers a credential: new partner keys and signing secrets are redacted', async () => {
    const partner = await call('create_partner', {name: 'mcp-partner'})
    expect(partner.isError).toBeUndefined()
    expect(partner.structuredContent).toMatchObject({apiSecret: '[REDACTED]', secretKey: '[REDACTED]'})
    const text = textOf(partner)
    expect(text).not.toMatch(/sk_test_[A-Za-z0-9]|"test_[A-Za-z0-9]/)
    const hook = await call('create_webhook', {url: 'http://127.0.0.1:9/hooks', events: ['wallet.created']})
    expect(hook.isError).toBeUndefined()
    expect(textOf(hook)).not.toMatch(/whsec_[A-Za-z0-9]/)
  })

  it("reads a user's timeline in one call: wallets, balances and what moved the money", async () => {
    const user = await newUser('story@example.test')
    const friend = await newUser('friend@example.test')
    const from = await answer<{id: string}>('create_wallet', {
      userId: user,
      currency: 'USD',
      initialBalance: 10_000,
    })
    const to = await answer<{id: string}>('create_wallet', {userId: friend, currency: 'USD'})
    await answer('create_transaction', {
      amount: 2_500,
      currency: 'USD',
      method: 'wallet',
      sourceWalletId: from.id,
      destinationWalletId: to.id,
    })
    const story = await answer<{
      user: {id: string}
      wallets: {id: string}[]
      timeline: {kind: string; amount?: unknown}[]
      truncated: boolean
    }>('inspect_user', {user, kinds: ['transfer']})
    expect(story.user.id).toBe(user)
    expect(story.wallets.map((w) => w.id)).toEqual([from.id])
    expect(story.timeline.length).toBeGreaterThan(0)
    expect(story.timeline.every((l) => l.kind === 'transfer')).toBe(true)
    expect(story.truncated).toBe(false)
    const bad = await call('inspect_user', {user, since: 'yesterday'})
    expect(bad.isError).toBe(true)
    expect(textOf(bad)).toContain('since')
  })

  it('seeds a fixture given as text, once however often it is seeded, and places its problems in it', async () => {
    const document = [
      'users:',
      '  grace:',
      '    email: grace@example.test',
      '    first_name: Grace',
      '    last_name: Hopper',
      'wallets:',
      '  grace_usd:',
      '    user: ${users.grace.id}',
      '    currency: USD',
    ].join('\n')
    const first = await answer<{created: {wallets: {grace_usd: {id: string}}}}>('seed_fixture', {document})
    const second = await answer<typeof first>('seed_fixture', {document})
    expect(second.created.wallets.grace_usd.id).toBe(first.created.wallets.grace_usd.id)

    const broken = await call('seed_fixture', {document: 'users:\n  x:\n    email: 5\n    nickname: y\n'})
    expect(broken.isError).toBe(true)
    expect(broken.structuredContent).toMatchObject({error: {code: 'INVALID_FIXTURE'}})
    expect(textOf(broken)).toMatch(/document:\d+:\d+/)
    expect(textOf(broken)).not.toContain('payctl-mcp-')
    // The server's environment is not the fixture's to read.
    const env = await call('seed_fixture', {
      document: 'users:\n  e:\n    email: e@example.test\n    first_name: ${env.HOME}\n    last_name: E\n',
    })
    expect(env.structuredContent).toMatchObject({error: {code: 'INVALID_FIXTURE'}})
    expect(textOf(env)).toContain('HOME')
  })

  it('saves and restores a snapshot of the sandbox', async () => {
    const before = await newUser('before@example.test')
    await answer('save_snapshot', {name: 'mcp-before'})
    const after = await newUser('after@example.test')
    await answer('restore_snapshot', {name: 'mcp-before'})
    expect(await answer('get_user', {id: before})).toMatchObject({id: before})
    const gone = await call('get_user', {id: after})
    expect(gone.structuredContent.error).toMatchObject({code: 'NOT_FOUND'})
  })
})

describe('payctl mcp, the command', () => {
  it('refuses --allow-mutations that does not name the profile’s environment, before serving', async () => {
    const run = await cliFor(sandbox.configDir)('mcp', '--allow-mutations', 'production')
    expect(run.exitCode).toBe(2)
    expect(run.stdout).toBe('')
    expect(run.stderr).toContain('--allow-mutations')
  })
})
