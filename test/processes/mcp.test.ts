import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {type Endpoint, endpoints, isAuthEndpoint} from '../../src/contract/index.js'
import {ProfileStore} from '../../src/core/index.js'
import {toolName} from '../../src/mcp/endpoint-tools.js'
import {type LocalSandbox, startLocalSandbox} from '../helpers/local-sandbox.js'
import {answerOf, callTool, mcpProcess, schemaProblems} from '../helpers/mcp.js'

/**
 * `payctl mcp` as an agent's host runs it: the built CLI in a process of its own (`npm run build`
 * first), spoken to by the SDK's client over its stdin and stdout, against a sandbox served in
 * this process whose `local` profile the server's config dir holds.
 */

let sandbox: LocalSandbox
let server: Awaited<ReturnType<typeof mcpProcess>>

beforeAll(async () => {
  sandbox = await startLocalSandbox()
  server = await mcpProcess(sandbox.configDir)
})
afterAll(async () => {
  await server?.close()
  await sandbox?.stop()
})

const answer = <T = Record<string, unknown>>(name: string, args: Record<string, unknown> = {}) =>
  answerOf<T>(server.client, name, args)

describe('payctl mcp, a process on stdio', () => {
  it('lists a tool for every operation of the endpoint table, each input a valid JSON Schema', async () => {
    const {tools} = await server.client.listTools()
    const names = new Set(tools.map((t) => t.name))
    for (const endpoint of Object.values(endpoints) as Endpoint[])
      if (!isAuthEndpoint(endpoint))
        expect(names, endpoint.operationId).toContain(toolName(endpoint.operationId))
    expect(names).toContain('inspect_user')
    expect(names).toContain('seed_fixture')
    expect(schemaProblems(tools)).toEqual([])
    // stderr has the server's own line; stdout nothing but the protocol, which the client read whole.
    expect(server.stderr()).toMatch(/payctl mcp: \d+ tools for profile local/)
    expect(server.errors).toEqual([])
  })

  it('creates a user, a wallet and a transfer, and reads the user’s timeline', async () => {
    const user = await answer<{id: string}>('create_user', {
      email: 'ada@example.test',
      first_name: 'Ada',
      last_name: 'L',
    })
    const friend = await answer<{id: string}>('create_user', {
      email: 'bob@example.test',
      first_name: 'Bob',
      last_name: 'B',
    })
    const from = await answer<{id: string}>('create_wallet', {
      userId: user.id,
      currency: 'USD',
      initialBalance: 5_000,
    })
    const to = await answer<{id: string}>('create_wallet', {userId: friend.id, currency: 'USD'})
    const transfer = await answer<{id: string; amount: number}>('create_transaction', {
      amount: 1_250,
      currency: 'USD',
      method: 'wallet',
      sourceWalletId: from.id,
      destinationWalletId: to.id,
    })
    expect(transfer.amount).toBe(1_250)
    const story = await answer<{user: {id: string}; timeline: {kind: string}[]}>('inspect_user', {
      user: user.id,
    })
    expect(story.user.id).toBe(user.id)
    expect(story.timeline.map((l) => l.kind)).toContain('transfer')
  })

  it('saves and restores a snapshot, and adds and clears a fault', async () => {
    await answer('save_snapshot', {name: 'empty-ish'})
    const later = await answer<{id: string}>('create_user', {
      email: 'later@example.test',
      first_name: 'L',
      last_name: 'L',
    })
    await answer('restore_snapshot', {name: 'empty-ish'})
    const gone = await callTool(server.client, 'get_user', {id: later.id})
    expect(gone.isError).toBe(true)
    expect(gone.structuredContent.error).toMatchObject({
      code: 'NOT_FOUND',
      requestId: expect.stringMatching(/^req_/),
    })

    const fault = await answer<{id: string}>('add_api_fault', {
      route: 'POST /v1/users',
      status: 503,
      times: 1,
    })
    expect((await answer<{faults: {id: string}[]}>('list_faults')).faults.map((f) => f.id)).toEqual([
      fault.id,
    ])
    await answer('clear_faults')
    expect((await answer<{faults: unknown[]}>('list_faults')).faults).toEqual([])
  })

  it('refuses malformed arguments with a validation error naming the field, and keeps serving', async () => {
    const bad = await callTool(server.client, 'create_wallet', {
      userId: 'usr_x',
      currency: 'USD',
      initialBalance: 'lots',
    })
    expect(bad.isError).toBe(true)
    expect(JSON.stringify(bad.content)).toContain('initialBalance')
    expect(await answer('sandbox_clock')).toHaveProperty('now')
  })
})

describe('payctl mcp against production', () => {
  it('offers no tool that changes anything, nor the sandbox’s own', async () => {
    await new ProfileStore(sandbox.configDir).update((file) => {
      file.profiles.live = {
        environment: 'production',
        baseUrl: sandbox.url,
        auth: {variant: 'B', secretKey: 'live_not_a_real_key_0123456789'},
      }
    })
    const production = await mcpProcess(sandbox.configDir, ['--profile', 'live'])
    try {
      const {tools} = await production.client.listTools()
      expect(tools.map((t) => t.name)).toContain('get_user')
      expect(tools.map((t) => t.name)).toContain('inspect_user')
      expect(tools.filter((t) => t.annotations?.readOnlyHint !== true).map((t) => t.name)).toEqual([])
      for (const name of ['create_user', 'create_transaction', 'seed_fixture', 'sandbox_reset'])
        expect(tools.map((t) => t.name)).not.toContain(name)
      // The banner names the environment before anything is done in it; the server says what it withheld.
      expect(production.stderr()).toContain('PRODUCTION')
      expect(production.stderr()).toMatch(
        /withheld \(a change, in production without --allow-mutations production\)/,
      )
    } finally {
      await production.close()
    }
  })

  it('offers the changes when started to allow them there, announcing each on stderr', async () => {
    const refused = await mcpProcess(sandbox.configDir, ['--profile', 'live', '--allow-mutations', 'staging'])
      .then(async (s) => {
        await s.close()
        return 'started'
      })
      .catch((err: Error) => err.message)
    expect(refused).not.toBe('started')

    const production = await mcpProcess(sandbox.configDir, [
      '--profile',
      'live',
      '--allow-mutations',
      'production',
    ])
    try {
      const {tools} = await production.client.listTools()
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['create_user', 'seed_fixture']))
      expect(tools.map((t) => t.name)).not.toContain('sandbox_reset')
      // The sandbox knows no such key: the change is refused there, with the service's code.
      const created = await callTool(production.client, 'create_user', {
        email: 'p@example.test',
        first_name: 'P',
        last_name: 'P',
      })
      expect(created.isError).toBe(true)
      expect(created.structuredContent.error).toMatchObject({
        code: expect.any(String),
        requestId: expect.any(String),
      })
      expect(production.stderr()).toMatch(/PRODUCTION .*\n\s+create_user\n/s)
      expect(production.stderr()).not.toContain('live_not_a_real_key')
    } finally {
      await production.close()
    }
  })
})
