import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {exportFixture, writeFixtureFile} from '../../core/index.js'

export default class SeedExport extends BaseCommand<typeof SeedExport> {
  static override summary =
    "write the profile's partner as a fixture that payctl seed recreates in a fresh sandbox"
  static override description =
    'Users, wallets with their balances, saved payment methods, webhook registrations and round-up settings become records; what the API cannot recreate (transaction history, bank accounts, open BNPL plans, webhook secrets) is named in comments at the top. Ids and times are new where it is seeded.'
  static override examples = [
    '<%= config.bin %> <%= command.id %> --file state.yaml',
    '<%= config.bin %> <%= command.id %> > state.yaml',
  ]
  static override flags = {
    file: Flags.string({summary: 'write it to this file instead of stdout', helpValue: 'FILE'}),
  }

  async run(): Promise<{file?: string; fixture: string}> {
    const fixture = await this.out.spin('Reading the partner’s records', () => exportFixture(this.api))
    const {file} = this.flags
    if (file === undefined) {
      if (!this.jsonEnabled()) this.io.out.write(fixture)
      return {fixture}
    }
    writeFixtureFile(file, fixture)
    this.out.done('Wrote the fixture to', file)
    return {file, fixture}
  }
}
