import {Flags} from '@oclif/core'
import {BaseCommand} from '../../../cli/base-command.js'
import {listFlags} from '../../../cli/flags.js'
import {isRecord} from '../../../cli/rendering/field-readers.js'
import {bnplColumns} from '../../../cli/views/bnpl-views.js'
import {BNPL_STATUSES} from '../../../contract/index.js'

export default class BnplPaymentsList extends BaseCommand<typeof BnplPaymentsList> {
  static override summary = 'list BNPL payments, newest first'
  static override examples = [
    '<%= config.bin %> <%= command.id %> --user usr_0123456789abcdef01234567',
    '<%= config.bin %> <%= command.id %> --status active --all --output csv --columns id,outstanding',
  ]
  static override flags = {
    user: Flags.string({char: 'u', summary: 'only payments of this user (id or email)'}),
    status: Flags.option({options: BNPL_STATUSES})({summary: 'only this status'}),
    ...listFlags,
  }

  async run(): Promise<void> {
    const f = this.flags
    const user = await this.userIdOf(f.user)
    await this.out.list(
      {
        key: 'payments',
        fetch: (cursor, limit) =>
          this.api.call('listBnplPayments', {query: {userId: user, status: f.status, limit, cursor}}),
        items: (page) => (Array.isArray(page.payments) ? page.payments.filter(isRecord) : []),
        columns: bnplColumns,
      },
      f,
    )
  }
}
