import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {PayctlError, usageError} from '../../core/index.js'
import {DEFAULT_TOLERANCE_SECONDS, readPayload, verifyOrThrow} from '../../core/webhooks/index.js'

export default class WebhooksVerify extends BaseCommand<typeof WebhooksVerify> {
  static override summary = 'check a webhook signature against a payload and a secret'
  static override description =
    'For debugging a receiver: give the body exactly as received (a file, or stdin), the x-service-signature header and the signing secret. Exits 0 when the signature is valid; otherwise exits 1 and says which check failed: no header, an unparsable header, no v1 signature, no matching signature (wrong secret, or a body that is not byte-for-byte the one sent), or a timestamp outside the tolerance.'
  static override examples = [
    `<%= config.bin %> <%= command.id %> --secret whsec_… --signature 't=1767225600,v1=5257a8…' --payload body.json`,
    `curl -s … | <%= config.bin %> <%= command.id %> --secret "$WEBHOOK_SECRET" --signature "$SIG"`,
    `<%= config.bin %> <%= command.id %> --secret whsec_… --signature "$SIG" --payload body.json --tolerance 0`,
  ]
  static override flags = {
    secret: Flags.string({summary: 'the whsec_… signing secret', required: true}),
    signature: Flags.string({summary: 'the x-service-signature header value', required: true}),
    payload: Flags.string({summary: 'file holding the exact body bytes (default: stdin; - for stdin)'}),
    tolerance: Flags.integer({
      summary: 'seconds the timestamp may be off, either way; 0 skips the check',
      default: DEFAULT_TOLERANCE_SECONDS,
      min: 0,
    }),
  }

  async run(): Promise<{valid: true; timestamp: number; ageSeconds: number; secretIndex: number}> {
    const f = this.flags
    if (f.secret.trim() === '') {
      throw new PayctlError({
        kind: 'usage',
        code: 'MISSING_FLAG',
        message: '--secret is empty: give the whsec_… signing secret',
        details: {flag: '--secret'},
        suggestions: ['An unset variable makes it empty: is $WEBHOOK_SECRET exported?'],
      })
    }
    if (f.payload === undefined && this.io.in.isTTY) {
      throw usageError('give the body with --payload FILE, or pipe it on stdin', 'MISSING_PAYLOAD')
    }
    const payload = await readPayload(f.payload, this.io.in.stream)
    const result = verifyOrThrow(payload, f.signature, f.secret, {toleranceSeconds: f.tolerance})
    const age =
      result.ageSeconds >= 0 ? `${result.ageSeconds} s ago` : `${-result.ageSeconds} s in the future`
    this.out.log(`✓ valid signature (t=${result.timestamp}, signed ${age}, ${payload.length} bytes)`)
    return result
  }
}
