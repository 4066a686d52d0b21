import {Flags} from '@oclif/core'
import {BaseCommand} from '../cli/base-command.js'
import {globalFlags} from '../cli/flags.js'
import {usageError} from '../core/index.js'

export default class Mcp extends BaseCommand<typeof Mcp> {
  static override summary =
    "serve the profile's operations to an AI agent: a Model Context Protocol server on stdio"
  static override description =
    `One tool per operation of the API (get_user, create_wallet, list_transactions…), with a user's timeline (inspect_user) and seeding from a fixture (seed_fixture); against the local sandbox, its reset, clock, faults, snapshots and trigger too. stdout carries only the protocol; logs go to stderr. Against production no tool that changes anything is offered unless --allow-mutations names the environment. See docs/mcp.md.`
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --profile local',
    '<%= config.bin %> <%= command.id %> --profile live --allow-mutations production',
  ]
  // stdout is the protocol's: no JSON document of the command's own ever follows it, nor --jq's.
  static override enableJsonFlag = false
  static override baseFlags = (({jq: _, ...rest}) => rest)(globalFlags) as typeof globalFlags
  static override flags = {
    'allow-mutations': Flags.string({
      summary:
        "offer the tools that change something against production; the value is the profile's environment",
    }),
  }

  async run(): Promise<void> {
    const {profile} = this
    const allow = this.flags['allow-mutations']
    if (allow !== undefined && allow !== profile.environment)
      throw usageError(
        `--allow-mutations names ${allow}, but profile ${profile.name} is ${profile.environment}: it must name the environment it allows changes in`,
        'INVALID_FLAG',
        {flag: '--allow-mutations', value: allow},
      )
    // The SDK loads only with this command: every other one starts without it.
    const {createMcpServer, serveStdio} = await import('../mcp/server.js')
    const server = createMcpServer({
      client: this.api,
      profile,
      allowMutations: allow !== undefined,
      version: this.config.version,
      beforeProductionChange: (tool) => {
        this.banner(profile.environment, profile.name, profile.baseUrl)
        this.io.err.write(`  ${tool}\n`)
      },
      log: (line) => this.io.err.write(`${line}\n`),
    })
    await serveStdio(server, {input: this.io.in.stream, output: this.io.out.stream})
  }
}
