import {BaseCommand} from '../../cli/base-command.js'
import {openApiServerOf} from '../../cli/local-sandbox/openapi-server.js'
import {buildOpenApiDocument} from '../../contract/api/openapi.js'

export default class SandboxOpenapi extends BaseCommand<typeof SandboxOpenapi> {
  static override summary = 'print the OpenAPI 3.1 document of the service, generated from the contract'
  static override description =
    "Its server is the local profile's sandbox (http://127.0.0.1:4010 when the profile is not a local one). A running sandbox serves the same document at /openapi.json, naming its own address."
  static override examples = ['<%= config.bin %> <%= command.id %> > openapi.json']

  async run(): Promise<Record<string, unknown>> {
    const doc = buildOpenApiDocument(openApiServerOf(this.store, this.flags.profile, this.env))
    if (!this.jsonEnabled()) this.io.out.write(`${JSON.stringify(doc, null, 2)}\n`)
    return doc
  }
}
