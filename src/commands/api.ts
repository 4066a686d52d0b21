import {Args, Flags} from '@oclif/core'
import {requestBody, requestHeaders} from '../cli/api-request.js'
import {BaseCommand} from '../cli/base-command.js'
import {idempotencyKeyFlag, yesFlag} from '../cli/flags.js'
import {errorFrom, followPages, usageError} from '../core/index.js'

export default class Api extends BaseCommand<typeof Api> {
  static override summary =
    'send any request to the service, with the profile’s auth, retries and idempotency'
  static override description =
    `For what no command covers. The response body goes to stdout as the service sent it; a non-2xx answer also exits non-zero with the error on stderr (with --json, stdout holds only the error, in the form every command gives it).
A request that is not a GET asks for confirmation against production (--yes in scripts).
PATH is relative to the base URL; /v1 is added unless present (sandbox control routes under /_sandbox stay as they are).
--paginate follows nextCursor while hasMore is true, printing each page on its own line as it arrives.`
  static override examples = [
    '<%= config.bin %> <%= command.id %> GET /wallets?userId=usr_…',
    '<%= config.bin %> <%= command.id %> POST /users -d \'{"email":"a@example.test","first_name":"A","last_name":"B"}\'',
    '<%= config.bin %> <%= command.id %> POST /transactions -d @payment.json -H "Idempotency-Key: order-42"',
    '<%= config.bin %> <%= command.id %> GET /transactions --paginate | jq -c ".data.transactions[]"',
  ]
  static override args = {
    method: Args.string({
      description: 'HTTP method',
      required: true,
      options: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'get', 'post', 'put', 'patch', 'delete'],
    }),
    path: Args.string({description: 'path, e.g. /wallets/wal_…', required: true}),
  }
  static override flags = {
    data: Flags.string({char: 'd', summary: 'JSON body: text, @file, or - for stdin'}),
    header: Flags.string({char: 'H', summary: 'extra header "Name: value" (repeatable)', multiple: true}),
    paginate: Flags.boolean({summary: 'follow cursors and print every page'}),
    'idempotency-key': idempotencyKeyFlag,
    yes: yesFlag,
  }

  async run(): Promise<void> {
    const f = this.flags
    const method = this.args.method.toUpperCase()
    const body = requestBody(f.data, this.io)
    const headers = requestHeaders(f.header)
    if (method !== 'GET') await this.confirmProduction(`send ${method} ${this.args.path}`, f.yes)
    const send = (path: string) =>
      this.api.raw(method, path, {body, headers, idempotencyKey: f['idempotency-key']})
    // Write what the service sent; a failure also ends the command (under --json, stdout holds only
    // the error document, written by the base command).
    const print = (res: Parameters<typeof errorFrom>[0], out: string) => {
      const failed = res.status >= 300
      if (failed && this.jsonEnabled()) throw errorFrom(res)
      this.io.out.write(this.out.filtered(out))
      if (failed) throw errorFrom(res)
    }
    if (!f.paginate) {
      const res = await send(this.args.path)
      return print(res, res.text.endsWith('\n') || res.text === '' ? res.text : `${res.text}\n`)
    }
    if (method !== 'GET') throw usageError('--paginate follows cursors of GET requests only', 'USAGE')
    for await (const res of followPages(this.args.path, send)) print(res, `${res.text.trim()}\n`)
  }
}
