import {randomBytes} from 'node:crypto'
import {type LoadedStory, STORY_SECTIONS, type Story, type StorySection} from '../../contract/story.js'
import type {SandboxContext} from '../context.js'
import {ApiError} from '../http/api-error.js'
import {newTransactionId} from '../money/records.js'
import {newId, randomHex} from '../storage/ids.js'
import {withPageCache} from '../storage/page-cache.js'
import {checkReferences, recordsOf, refused, replayLedger} from './checks.js'
import {StoryRows} from './rows.js'

/**
 * Loading a customer's story (docs/investigations.md#bringing-the-story-home): the document is
 * checked whole, then written in one transaction under new ids, for the caller's partner. Nothing
 * of it goes through the features' operations, which would make history anew (a payment made now,
 * its webhooks delivered now): the rows are written as they were, and the partner's clock moves
 * to the story's time, so that every record keeps its own time and age.
 */

const NEW_ID: Record<StorySection, () => string> = {
  users: newId.user,
  wallets: newId.wallet,
  payment_methods: () => `pm_${randomHex(12)}`,
  transactions: newTransactionId,
  events: newId.event,
  bnpl_payments: () => `bnpl_${randomHex(12)}`,
  roundup_settings: () => '',
  roundups: () => `rnd_${randomHex(12)}`,
}

/**
 * SQLite's page cache while a story is written: the pages 10,000 transactions change (11 MB of WAL)
 * would otherwise all stay in the cache, beside the document's objects, until the commit.
 */
const STORY_PAGE_CACHE_KIB = 4096

/** Each record's new id, by its reference (`${wallets.ada_usd.id}`). */
export type IdsByRef = Map<string, string>

function newIds(story: Story): IdsByRef {
  const ids: IdsByRef = new Map()
  for (const section of STORY_SECTIONS)
    for (const name of Object.keys(recordsOf(story, section)))
      ids.set(`\${${section}.${name}.id}`, NEW_ID[section]())
  return ids
}

const REF = /\$\{(\w+)\.([A-Za-z][\w-]{0,63})\.id\}/g

/** An event's data with each reference to a record of the story replaced by its new id. */
function resolvedData(data: unknown, ids: IdsByRef, path: string): unknown {
  if (typeof data === 'string')
    return data.replace(REF, (whole) => {
      const id = ids.get(whole)
      if (id === undefined) throw refused(path, `${whole} names no record of the story`)
      return id
    })
  if (Array.isArray(data)) return data.map((v, i) => resolvedData(v, ids, `${path}.${i}`))
  if (data !== null && typeof data === 'object')
    return Object.fromEntries(Object.entries(data).map(([k, v]) => [k, resolvedData(v, ids, `${path}.${k}`)]))
  return data
}

export class StoryService {
  readonly #ctx: Pick<SandboxContext, 'database' | 'clock' | 'settings'>
  readonly #rows: StoryRows

  constructor(ctx: Pick<SandboxContext, 'database' | 'clock' | 'settings'>) {
    this.#ctx = ctx
    this.#rows = new StoryRows(ctx.database)
  }

  /** Check the story, write it for `partnerId` in one transaction, and move the partner's clock to its time. */
  load(partnerId: string, story: Story): LoadedStory {
    checkReferences(story)
    const balances = replayLedger(story)
    const ids = newIds(story)
    const id = (ref: string) => ids.get(ref)!
    // Resolved as each event is written, not all beforehand: a reference that names nothing still
    // refuses the story, and the transaction writes none of it.
    const data = (name: string, e: {data: Record<string, unknown>}) =>
      resolvedData(e.data, ids, `events.${name}.data`) as Record<string, unknown>
    const {clock, database} = this.#ctx
    const now = new Date(clock.nowMs(partnerId)).toISOString()
    try {
      withPageCache(database, STORY_PAGE_CACHE_KIB, () =>
        database.transaction(() => {
          const rows = this.#rows
          rows.people(partnerId, story, id)
          rows.transactions(partnerId, story, id, this.#ctx.settings.settleAfterSeconds)
          rows.ledger(partnerId, story, id, balances)
          rows.events(partnerId, story, id, data, {
            now,
            session: `lsn_${randomHex(12)}`,
            secret: `whsec_${randomBytes(24).toString('hex')}`,
          })
          rows.products(partnerId, story, id)
        }),
      )
    } catch (err) {
      if (err instanceof ApiError) throw err
      // A unique key of the partner's own rows (a purchase id it has already): the story's fault.
      if (/UNIQUE constraint failed/.test(String((err as Error).message)))
        throw refused('(story)', `it repeats a record the partner has: ${(err as Error).message}`)
      throw err
    } finally {
      this.#rows.forget()
    }
    // Forward only: a partner whose clock is past the story's keeps its time (the records are older).
    const at = Date.parse(story.clock)
    if (at > clock.nowMs(partnerId))
      clock.moveTo(partnerId, Math.min(at, clock.nowMs(partnerId) + 364 * 86_400_000))
    const named = Object.fromEntries(
      [...ids].filter(([, v]) => v !== '').map(([ref, v]) => [ref.slice(2, -4), v]),
    )
    return {loaded: true, ids: named, clock: new Date(clock.nowMs(partnerId)).toISOString()}
  }
}
