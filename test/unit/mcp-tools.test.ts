import type {Tool as ListedTool} from '@modelcontextprotocol/sdk/types.js'
import {Ajv} from 'ajv'
import {beforeAll, describe, expect, it} from 'vitest'
import {type Endpoint, endpoints, isAuthEndpoint} from '../../src/contract/index.js'
import {toolName} from '../../src/mcp/endpoint-tools.js'
import {mcpInProcess, profileOf, schemaProblems} from '../helpers/mcp.js'

/** The tools a server offers a profile of `kind`, as the SDK's client lists them. */
async function listed(
  kind: 'local' | 'sandbox' | 'production',
  allowMutations = false,
): Promise<ListedTool[]> {
  const session = await mcpInProcess({profile: profileOf(kind), allowMutations})
  try {
    return (await session.client.listTools()).tools
  } finally {
    await session.close()
  }
}

const table = Object.values(endpoints) as Endpoint[]
const byName = (tools: ListedTool[]) => new Map(tools.map((t) => [t.name, t]))

describe('the tools of payctl mcp, from the endpoint table', () => {
  let local: ListedTool[]
  beforeAll(async () => {
    local = await listed('local')
  })

  it('offers every operation but the token endpoints, named for its verb and resource', () => {
    const names = byName(local)
    for (const endpoint of table) {
      expect(names.has(toolName(endpoint.operationId)), endpoint.operationId).toBe(!isAuthEndpoint(endpoint))
    }
    for (const name of ['get_user', 'create_wallet', 'list_transactions', 'send_p2p', 'sandbox_reset'])
      expect(names.has(name), name).toBe(true)
    for (const name of ['create_token', 'refresh_token', 'revoke_token', 'revoke_all_tokens', 'mint_jwt'])
      expect(names.has(name), name).toBe(false)
    expect(names.has('inspect_user') && names.has('seed_fixture')).toBe(true)
    // Names a client accepts: the MCP rule, and one per tool.
    for (const name of names.keys()) expect(name).toMatch(/^[a-z][a-z0-9_]{0,63}$/)
    expect(names.size).toBe(local.length)
  })

  it('lists each input as a valid JSON Schema of flat arguments: path, query and body fields at the top', () => {
    expect(schemaProblems(local)).toEqual([])
    const tools = byName(local)
    const input = (name: string) => tools.get(name)!.inputSchema as {properties: object; required?: string[]}
    expect(Object.keys(input('get_user').properties)).toEqual(['id'])
    expect(input('get_user').required).toEqual(['id'])
    expect(Object.keys(input('create_wallet').properties)).toEqual(
      expect.arrayContaining(['userId', 'currency', 'label', 'initialBalance', 'idempotencyKey']),
    )
    expect(input('create_wallet').required).toEqual(['userId', 'currency'])
    expect(Object.keys(input('list_transactions').properties)).toEqual(
      expect.arrayContaining(['limit', 'cursor']),
    )
    // A path parameter and a body beside it: the refund of a transaction.
    expect(Object.keys(input('refund_transaction').properties)).toEqual(
      expect.arrayContaining(['id', 'amount']),
    )
    expect(input('refund_transaction').required).toEqual(['id'])
  })

  it('checks arguments as the listed schema says: a missing field, a wrong type, an unknown name', () => {
    const ajv = new Ajv({strict: false})
    const createWallet = ajv.compile(byName(local).get('create_wallet')!.inputSchema)
    expect(createWallet({userId: 'usr_1', currency: 'USD'})).toBe(true)
    expect(createWallet({currency: 'USD'})).toBe(false)
    expect(createWallet({userId: 'usr_1', currency: 'USD', initialBalance: 1.5})).toBe(false)
    expect(createWallet({userId: 'usr_1', currency: 'USD', colour: 'red'})).toBe(false)
  })

  it('describes each tool from its contract entry, and says which change nothing', () => {
    const tools = byName(local)
    const getUser = tools.get('get_user')!
    expect(getUser.description).toContain(endpoints.getUser.summary)
    expect(getUser.description).toContain('GET /v1/users/{id}')
    expect(getUser.annotations?.readOnlyHint).toBe(true)
    expect(tools.get('sandbox_reset')!.description).toContain('POST /_sandbox/reset')
    expect(tools.get('sandbox_reset')!.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
    })
    expect(tools.get('create_user')!.annotations).toMatchObject({readOnlyHint: false, destructiveHint: false})
  })
})

describe('what each profile is offered', () => {
  it("offers the sandbox's own routes against the local sandbox only", async () => {
    const control = table.filter((e) => e.versioned === false).map((e) => toolName(e.operationId))
    expect(control).toEqual(
      expect.arrayContaining(['sandbox_reset', 'save_snapshot', 'add_api_fault', 'sandbox_trigger']),
    )
    const local = byName(await listed('local'))
    const sandbox = byName(await listed('sandbox'))
    for (const name of control) {
      expect(local.has(name), name).toBe(true)
      expect(sandbox.has(name), name).toBe(false)
    }
    // A remote sandbox is offered every change of the API itself.
    expect(sandbox.has('create_user') && sandbox.has('seed_fixture')).toBe(true)
  })

  it('offers production nothing that changes anything, unless the server was started to allow it', async () => {
    const readOnly = await listed('production')
    expect(readOnly.length).toBeGreaterThan(15)
    expect(readOnly.filter((t) => t.annotations?.readOnlyHint !== true).map((t) => t.name)).toEqual([])
    expect(byName(readOnly).has('get_user') && byName(readOnly).has('inspect_user')).toBe(true)

    const allowed = byName(await listed('production', true))
    expect(allowed.has('create_transaction') && allowed.has('seed_fixture')).toBe(true)
    // Still none of the local sandbox's own.
    expect(allowed.has('sandbox_reset')).toBe(false)
  })
})
