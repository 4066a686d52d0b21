import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {openBrowser, opensBrowser} from '../../cli/local-sandbox/open-browser.js'
import type {InspectorLink} from '../../contract/inspector.js'
import {mintInspectorLink} from '../../core/index.js'

export default class SandboxUi extends BaseCommand<typeof SandboxUi> {
  static override summary =
    'print (and in a terminal, open) a one-time sign-in link to the inspector for your partner'
  static override description =
    'The link signs one browser on this machine in to the browser inspector as the profile\'s partner, without typing the API key and secret: it works once, for 60 seconds, from loopback only. In a terminal it also opens in the default browser (not under CI, --json or --no-browser). See docs/inspector.md.\nWith --json: {"url", "expiresAt"}.'
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --no-browser',
    '<%= config.bin %> <%= command.id %> --json',
  ]
  static override flags = {
    browser: Flags.boolean({
      summary: 'open the link in the default browser when run in a terminal (--no-browser: print it only)',
      default: true,
      allowNo: true,
    }),
  }

  async run(): Promise<InspectorLink> {
    this.requireLocal('the inspector')
    const link = await this.out.spin('Making a sign-in link', () => mintInspectorLink(this.api))
    this.out.log(link.url)
    const open = opensBrowser({
      stdoutIsTTY: this.io.out.isTTY,
      env: this.env,
      json: this.jsonEnabled(),
      browser: this.flags.browser,
    })
    if (open && !(await openBrowser(link.url))) this.out.warn('could not open a browser: open the link above')
    if (!this.jsonEnabled() && this.io.err.isTTY)
      this.io.err.write(`It signs one browser in, once, until ${link.expiresAt}.\n`)
    return link
  }
}
