import type {Cli} from './cli.js'

/**
 * Values a hostile or careless integration could store in a record, that would drive a terminal
 * were they printed as they are, and the records of a sandbox that carry them: shared by the tests
 * of what payctl prints in a pipe (test/commands) and in a terminal (test/processes).
 */

export const ESC = String.fromCharCode(27)
export const BEL = String.fromCharCode(7)
export const CSI8 = String.fromCharCode(0x9b)
// A name that would set the window title, a label that would write the clipboard (OSC 52) and
// clear the line.
export const NAME = `Eve${ESC}]0;pwned${BEL}`
export const LABEL = `Savings${ESC}]52;c;aGVsbG8=${BEL}${ESC}[2K${CSI8}31m`
/** Any raw control character but newline, as a terminal would act on it. */
export const RAW_CONTROL = new RegExp(
  `[${String.fromCharCode(0)}-${String.fromCharCode(9)}${String.fromCharCode(11)}-${String.fromCharCode(31)}${String.fromCharCode(127)}-${String.fromCharCode(159)}]`,
)
/** The bidirectional controls, which make text read other than it is (an .exe passing for a .pdf). */
export const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/
// CSI in its one-character form (U+009B) would erase the screen; the bidi controls after it turn
// "fdp.exe" around.
export const C1_LABEL = `Pay${CSI8}2J\u202efdp.exe\u200f\u061c\u200e\u2067x\u2069`
export const C1_SHOWN = 'Pay\\x9b2J\\u202efdp.exe\\u200f\\u061c\\u200e\\u2067x\\u2069'

/** The records of a sandbox that carry those values. */
export interface HostileRecords {
  /** A user named NAME. */
  user: string
  /** Its USD wallet labelled LABEL. */
  wallet: string
  /** Its EUR wallet labelled C1_LABEL. */
  eurWallet: string
  /** The event of a card labelled C1_LABEL, which carries the label. */
  cardEvent: string
}

/** Make the records with `cli` (a sandbox's commands), checking each is made. */
export async function hostileRecords(cli: Cli): Promise<HostileRecords> {
  const made = async (...args: string[]) => {
    const r = await cli(...args)
    if (r.exitCode !== 0) throw new Error(`payctl ${args.join(' ')}: exit ${r.exitCode}\n${r.stderr}`)
    return r
  }
  const body = JSON.stringify({email: 'eve@example.test', first_name: NAME, last_name: 'X'})
  const user = (await made('api', 'POST', '/users', '-d', body)).json<{data: {id: string}}>().data.id
  const wallet = await made(
    'wallets',
    'create',
    '--user',
    user,
    '--currency',
    'USD',
    '--label',
    LABEL,
    '--json',
  )
  // A wallet and a card (whose event carries its label) labelled with C1 and bidi controls.
  const eur = await made(
    'wallets',
    'create',
    '--user',
    user,
    '--currency',
    'EUR',
    '--label',
    C1_LABEL,
    '--json',
  )
  const walletId = wallet.json<{id: string}>().id
  await made('cards', 'create', user, '--wallet', walletId, '--label', C1_LABEL, '--json')
  const events = await made('events', 'list', '--type', 'walletsvc.card.created', '--json')
  return {
    user,
    wallet: walletId,
    eurWallet: eur.json<{id: string}>().id,
    cardEvent: events.json<{events: {id: string}[]}>().events[0]!.id,
  }
}
