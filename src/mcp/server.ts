import {McpServer} from '@modelcontextprotocol/sdk/server/mcp.js'
import {StdioServerTransport} from '@modelcontextprotocol/sdk/server/stdio.js'
import type {PayctlClient, ResolvedProfile} from '../core/index.js'
import {endpointTools} from './endpoint-tools.js'
import {jobTools} from './job-tools.js'
import {failure} from './results.js'
import type {Tool} from './tool.js'

/**
 * `payctl mcp`: the profile's operations as tools of a Model Context Protocol server, for an agent
 * to drive the platform or the local sandbox with. What a profile is offered follows two rules:
 * the sandbox's own routes only against the local sandbox, and no change at all against
 * production unless the server was started to allow it there.
 */

export interface McpServerOptions {
  client: PayctlClient
  profile: ResolvedProfile
  /** Whether changes are offered against production: the person starting the server said so. */
  allowMutations: boolean
  version: string
  /** Called before each change sent to production, to say so where a person watches (stderr). */
  beforeProductionChange?: ((tool: string) => void) | undefined
  /** Where the server says what it offers: a log, never the protocol's stream. */
  log?: ((line: string) => void) | undefined
}

/** Why a tool is not offered to the profile, or undefined when it is. */
function withheld(
  tool: Pick<Tool, 'mutates' | 'localOnly'>,
  profile: ResolvedProfile,
  allowMutations: boolean,
) {
  if (tool.localOnly && profile.kind !== 'local') return 'the local sandbox only'
  if (tool.mutates && profile.kind === 'production' && !allowMutations)
    return `a change, in production without --allow-mutations ${profile.environment}`
  return undefined
}

/** Every tool there is for a client: the operations of the endpoint table, then the jobs. */
function allTools(client: PayctlClient, profile: ResolvedProfile): Tool[] {
  return [...endpointTools(client), ...jobTools(client, profile)]
}

/** The tools offered to the profile, and how many are withheld for each reason. */
function offeredTools(opts: Pick<McpServerOptions, 'client' | 'profile' | 'allowMutations'>): {
  tools: Tool[]
  withheld: Map<string, number>
} {
  const tools: Tool[] = []
  const counts = new Map<string, number>()
  for (const tool of allTools(opts.client, opts.profile)) {
    const why = withheld(tool, opts.profile, opts.allowMutations)
    if (why === undefined) tools.push(tool)
    else counts.set(why, (counts.get(why) ?? 0) + 1)
  }
  return {tools, withheld: counts}
}

function instructionsFor(opts: McpServerOptions, tools: Tool[]): string {
  const {profile} = opts
  const changes = tools.some((t) => t.mutates)
  return [
    `payctl, for profile "${profile.name}": the ${profile.environment} environment at ${profile.baseUrl}.`,
    'Amounts are integers in the smallest unit of their currency (cents, wei); one beyond 2^53 is answered as its digits in a string.',
    'Every change is sent with an idempotency key (give idempotencyKey to repeat one safely); credentials never appear in an answer.',
    profile.kind === 'local'
      ? "The sandbox's own tools (sandbox_*, faults, snapshots, trigger) drive the local sandbox."
      : "The sandbox's own tools are offered only against the local sandbox.",
    profile.kind === 'production'
      ? changes
        ? 'PRODUCTION: changes move real money and were allowed when this server was started.'
        : 'PRODUCTION: read-only; changes are offered only when the server is started with --allow-mutations.'
      : '',
  ]
    .filter((line) => line !== '')
    .join('\n')
}

/** The server with the tools offered to the profile, not yet connected. */
export function createMcpServer(opts: McpServerOptions): McpServer {
  const {tools, withheld: counts} = offeredTools(opts)
  const {profile} = opts
  const hidden = [...counts].map(([why, n]) => `${n} withheld (${why})`)
  opts.log?.(
    `payctl mcp: ${tools.length} tools for profile ${profile.name} (${profile.environment}, ${profile.baseUrl})${hidden.length > 0 ? `; ${hidden.join('; ')}` : ''}`,
  )
  const server = new McpServer(
    {name: 'payctl', version: opts.version},
    {instructions: instructionsFor(opts, tools)},
  )
  const production = profile.kind === 'production'
  for (const tool of tools) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: tool.input,
        annotations: tool.annotations,
      },
      async (args: Record<string, unknown>) => {
        if (tool.mutates && production) opts.beforeProductionChange?.(tool.name)
        // A tool never throws, but a bug must not end the server either.
        return tool.run(args).catch(failure)
      },
    )
  }
  return server
}

/**
 * Serve on a pair of streams (the process's stdin and stdout) until the client closes its end;
 * nothing but the protocol is written to `output`.
 */
export async function serveStdio(
  server: McpServer,
  streams: {input: NodeJS.ReadableStream; output: NodeJS.WritableStream},
): Promise<void> {
  const closed = new Promise<void>((resolve) => {
    server.server.onclose = resolve
  })
  const transport = new StdioServerTransport(
    streams.input as ConstructorParameters<typeof StdioServerTransport>[0],
    streams.output as ConstructorParameters<typeof StdioServerTransport>[1],
  )
  await server.connect(transport)
  // The transport reads stdin but does not end with it: a client that closes its end is done.
  const end = () => void server.close()
  streams.input.once('end', end)
  streams.input.once('close', end)
  await closed
}
