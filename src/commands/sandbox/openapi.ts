import {BaseCommand} from '../../cli/base-command.js'
import {buildOpenApiDocument} from '../../contract/api/openapi.js'

export default class SandboxOpenapi extends BaseCommand<typeof SandboxOpenapi> {
  static override summary = 'print the OpenAPI 3.1 document of the service, generated from the contract'
  static override examples = ['<%= config.bin %> <%= command.id %> > openapi.json']

  async run(): Promise<Record<string, unknown>> {
    const doc = buildOpenApiDocument()
    if (!this.jsonEnabled()) this.io.out.write(`${JSON.stringify(doc, null, 2)}\n`)
    return doc
  }
}
