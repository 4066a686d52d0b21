import type {Browser, Page} from 'playwright-core'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {INSPECTOR_PATH} from '../../src/contract/inspector.js'
import {formatMoney, signedMoney} from '../../src/contract/money/format.js'
import {browserTestsRun, launchBrowser} from '../helpers/browser.js'
import {type SupportStory, supportStory} from '../helpers/support-story.js'

/**
 * One customer, two readers: the inspector's user page (read in Chromium) and `payctl users
 * inspect --json` tell the same lines, with the same amounts (what each moved in the wallet, net of
 * fees), the same balance after each and the same webhook outcome, in the same order, with the
 * event lines (`--events`, the page's switch) and without. A support person comparing the two
 * for a "money went missing" ticket must never find a gap that one of them made up. The customer
 * is the support ticket's (test/helpers/support-story.ts, built through the CLI): a card top-up
 * with its fee, a failed ACH, a wallet transfer, a partial refund, a round-up, a BNPL instalment
 * and a webhook delivery that failed then succeeded (its receiver is on 127.0.0.1).
 */

interface Line {
  at: string
  id: string
  source: string
  what: string
  status?: string
  amount?: number
  currency?: string
  walletId?: string
  balanceAfter?: {total: number; currency: string}
  webhook?: string
}

/** What a row of the timeline shows, by column. */
interface Row {
  at: string
  what: string
  amount: string
  balance: string
  status: string
  webhook: string
  id: string
}

let story: SupportStory
let browser: Browser
let page: Page

const json = async <T>(...args: string[]) => {
  const r = await story.cli(...args, '--json')
  expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBe(0)
  return r.json<T>()
}

/** The rows of the user page's timeline, as the browser shows them. */
async function rowsShown(): Promise<Row[]> {
  const table = page.locator('table', {has: page.locator('caption', {hasText: 'Timeline, newest first'})})
  return table.locator('tbody tr').evaluateAll((rows) =>
    rows.map((row) => {
      const cell = (label: string) => row.querySelector(`td[data-label="${label}"]`)
      const text = (label: string) => cell(label)?.textContent?.trim() ?? '(no such column)'
      return {
        at: cell('Time')?.querySelector('time')?.getAttribute('datetime') ?? '',
        what: text('What'),
        amount: text('Amount'),
        balance: text('Balance'),
        status: cell('Status')?.querySelector('.status')?.textContent?.trim() ?? '(no status)',
        webhook: cell('Status')?.querySelector('.webhook .status')?.textContent?.trim() ?? '',
        id: text('ID'),
      }
    }),
  )
}

/** What the page must show of a line of `users inspect`. */
const rowOf = (l: Line): Row => ({
  at: l.at,
  what: l.what,
  amount: l.source === 'event' ? '' : signedMoney(l.amount, l.currency),
  balance: l.balanceAfter === undefined ? '' : formatMoney(l.balanceAfter.total, l.balanceAfter.currency),
  status: l.status ?? '—',
  webhook: l.webhook ?? '',
  id: l.id,
})

const runs = browserTestsRun()

describe.runIf(runs)("a user's timeline in the inspector and in users inspect", () => {
  beforeAll(async () => {
    ;[story, browser] = await Promise.all([supportStory(), launchBrowser()])
    page = await (await browser.newContext({viewport: {width: 1280, height: 800}})).newPage()
    await page.goto(`${story.sandbox.url}${INSPECTOR_PATH}/sign-in`)
    await page.getByLabel('API key').fill(story.sandbox.credentials.apiKey)
    await page.getByLabel('API secret').fill(story.sandbox.credentials.apiSecret)
    await page.getByRole('button', {name: 'Sign in'}).click()
    await page.getByRole('heading', {level: 1, name: 'Transactions'}).waitFor()
  }, 120_000)

  afterAll(async () => {
    await browser?.close()
    await story?.stop()
  })

  it('shows the same lines, amounts and balances, in the same order', async () => {
    const {ada, usd, card, refund} = story
    const {timeline, wallets} = await json<{
      timeline: Line[]
      wallets: {id: string; balance: {total: number}}[]
    }>('users', 'inspect', ada)
    // The story is all there: what moved the wallet, net of fees, and the failed delivery retried,
    // told on the line of the top-up it was about.
    const moved = (txn: string) => timeline.filter((l) => l.source !== 'event' && l.id === txn)
    const topUp = await json<{fee: number; netAmount: number}>('transactions', 'get', card)
    expect(topUp.fee).toBeGreaterThan(0)
    expect(moved(card).map((l) => l.amount)).toEqual([topUp.netAmount])
    expect(moved(refund)[0]!.amount).toBeLessThan(0)
    expect(moved(story.ach).map((l) => l.status)).toEqual(['failed R01', 'processing'])
    expect(moved(card).map((l) => l.webhook)).toEqual(['delivered on try 2'])
    expect(timeline.filter((l) => l.source === 'event')).toEqual([])
    const wallet = wallets.find((w) => w.id === usd)!
    expect(timeline.reduce((n, l) => n + (l.walletId === usd ? (l.amount ?? 0) : 0), 0)).toBe(
      wallet.balance.total,
    )

    await page.goto(`${story.sandbox.url}${INSPECTOR_PATH}/users/${ada}`)
    await page.getByRole('heading', {level: 1, name: 'Ada L'}).waitFor()
    const expected = timeline.map(rowOf)
    await expect.poll(rowsShown, {timeout: 15_000}).toEqual(expected)
    // The newest balance of the wallet the page shows is the wallet's.
    const newest = timeline.find((l) => l.walletId === usd && l.balanceAfter !== undefined)!
    expect(rowOf(newest).balance).toBe(formatMoney(wallet.balance.total, 'USD'))

    // The switch shows the events as lines of their own, as --events does, at an address of its own.
    const everything = await json<{timeline: Line[]}>('users', 'inspect', ada, '--events')
    expect(everything.timeline.filter((l) => l.source === 'event').length).toBeGreaterThan(0)
    await page.getByLabel('Show the webhook events as lines of their own').check()
    await expect.poll(rowsShown, {timeout: 15_000}).toEqual(everything.timeline.map(rowOf))
    expect(new URL(page.url()).search).toBe('?events=1')
    await page.getByLabel('Show the webhook events as lines of their own').uncheck()
    await expect.poll(rowsShown, {timeout: 15_000}).toEqual(expected)
  })
})
