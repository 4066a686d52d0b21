import {join} from 'node:path'
import {Client} from '@modelcontextprotocol/sdk/client/index.js'
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js'
import {InMemoryTransport} from '@modelcontextprotocol/sdk/inMemory.js'
import type {CallToolResult, Tool as ListedTool} from '@modelcontextprotocol/sdk/types.js'
import {Ajv} from 'ajv'
import addFormats from 'ajv-formats'
import {PayctlClient, type ResolvedProfile} from '../../src/core/index.js'
import {createMcpServer, type McpServerOptions} from '../../src/mcp/server.js'
import {cliEnv, ROOT} from './cli.js'

/** An MCP client and what ends it (and the server it talks to). */
export interface McpSession {
  client: Client
  close(): Promise<void>
}

/** A profile as resolution hands it out, for a server that sends nothing (listing its tools). */
export function profileOf(kind: ResolvedProfile['kind'], environment: string = kind): ResolvedProfile {
  const source = 'file' as const
  return {
    name: environment,
    environment,
    kind,
    baseUrl: 'http://127.0.0.1:9',
    stored: false,
    sources: {profile: source, environment: source, baseUrl: source, authUrl: source, credentials: source},
  }
}

/** The server of src/mcp in this process, connected to an SDK client through the SDK's in-memory pair. */
export async function mcpInProcess(
  opts: Omit<McpServerOptions, 'client' | 'version'> & {client?: PayctlClient},
): Promise<McpSession> {
  const server = createMcpServer({
    ...opts,
    client: opts.client ?? new PayctlClient({profile: opts.profile}),
    version: '0.0.0-test',
  })
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  await server.connect(serverSide)
  const client = new Client({name: 'payctl-test', version: '1.0.0'})
  await client.connect(clientSide)
  return {client, close: () => client.close().then(() => server.close())}
}

/**
 * `payctl mcp` as an agent's host starts it: the built CLI in a process of its own, spoken to over
 * its stdin and stdout by the SDK's client; its stderr kept apart. `npm run build` first.
 */
export async function mcpProcess(
  configDir: string,
  args: string[] = [],
): Promise<McpSession & {stderr: () => string; errors: Error[]}> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(ROOT, 'bin', 'run.js'), 'mcp', ...args],
    env: cliEnv(configDir) as Record<string, string>,
    stderr: 'pipe',
  })
  let stderr = ''
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  const errors: Error[] = []
  const client = new Client({name: 'payctl-test', version: '1.0.0'})
  client.onerror = (err) => errors.push(err)
  await client.connect(transport)
  return {client, close: () => client.close(), stderr: () => stderr, errors}
}

/** A tool's result, with its structured content typed loosely for a test to read. */
export async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<CallToolResult & {structuredContent: Record<string, unknown>}> {
  const result = (await client.callTool({name, arguments: args})) as CallToolResult
  return {...result, structuredContent: (result.structuredContent ?? {}) as Record<string, unknown>}
}

/** What a successful call answered: fails the test with the error's text otherwise. */
export async function answerOf<T = Record<string, unknown>>(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<T> {
  const result = await callTool(client, name, args)
  if (result.isError === true) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`)
  return result.structuredContent as T
}

/** Each listed input schema's problems as a JSON Schema (draft 7, strict: no unknown keyword), by tool. */
export function schemaProblems(tools: ListedTool[]): string[] {
  const ajv = new Ajv({strict: true, allErrors: true})
  addFormats.default(ajv)
  const problems: string[] = []
  for (const tool of tools) {
    try {
      if (!ajv.validateSchema(tool.inputSchema)) problems.push(`${tool.name}: ${ajv.errorsText()}`)
      ajv.compile(tool.inputSchema)
    } catch (err) {
      problems.push(`${tool.name}: ${(err as Error).message}`)
    }
  }
  return problems
}
