import type {Browser, BrowserContext, Page} from 'playwright-core'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {INSPECTOR_PATH} from '../../src/contract/inspector.js'
import {browserTestsRun, launchBrowser} from '../helpers/browser.js'
import {payctl} from '../helpers/cli.js'
import {type SandboxProcess, startSandboxProcess} from '../helpers/sandbox.js'
import {type Receiver, startReceiver} from '../helpers/webhooks-receiver.js'

/**
 * The inspector in a real browser (headless Chromium driven by playwright-core) against a real
 * sandbox process, with the CLI changing things beside it: what a support person does with it,
 * and what it refuses to anyone else.
 */

let sandbox: SandboxProcess
let receiver: Receiver
let browser: Browser
let signedIn: BrowserContext
let ada: string
let adaWallet: string
const cspViolations: string[] = []
let bobWallet: string

const cli = (...args: string[]) => payctl(args, {configDir: sandbox.configDir, timeoutMs: 60_000})
const id = async (...args: string[]) => {
  const r = await cli(...args)
  expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBe(0)
  return r.stdout.trim()
}
const ui = (path = '') => `${sandbox.url}${INSPECTOR_PATH}${path}`

/** The partner clock's offset, as the signed-in page reads it. */
const offset = (page: Page) =>
  page.evaluate(
    "fetch('/_sandbox/ui/api/read/sandboxClock').then((r) => r.json()).then((c) => c.offsetSeconds)",
  ) as Promise<number>

/**
 * Whether the search box shows the whole of its placeholder: the text's width, in the input's
 * font, within the input's room for text.
 */
const placeholderFits = (page: Page) =>
  page.evaluate(`(() => {
    const input = document.querySelector('#search')
    const style = getComputedStyle(input)
    const context = document.createElement('canvas').getContext('2d')
    context.font = style.fontWeight + ' ' + style.fontSize + ' ' + style.fontFamily
    const room = input.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight)
    return {placeholder: input.placeholder, fits: context.measureText(input.placeholder).width <= room}
  })()`) as Promise<{placeholder: string; fits: boolean}>

/** Sign in through the form, the way a person does. */
async function signIn(page: Page): Promise<void> {
  await page.goto(ui())
  await page.waitForURL(/\/sign-in\?next=/)
  await page.getByLabel('API key').fill(sandbox.credentials.apiKey)
  await page.getByLabel('API secret').fill(sandbox.credentials.apiSecret)
  await page.getByRole('button', {name: 'Sign in'}).click()
  await page.getByRole('heading', {level: 1, name: 'Transactions'}).waitFor()
}

const runs = browserTestsRun()

describe('without a browser', () => {
  it('the tests are skipped on a developer machine, and fail under CI', () => {
    expect(browserTestsRun({}, ['/nonexistent/chromium'])).toBe(false)
    expect(() => browserTestsRun({CI: 'true'}, ['/nonexistent/chromium'])).toThrow(/no browser/)
    expect(browserTestsRun({CI: 'true', PAYCTL_CHROMIUM: '/opt/chromium'}, [])).toBe(true)
  })
})

describe.runIf(runs)('the inspector in a browser', () => {
  beforeAll(async () => {
    ;[sandbox, receiver, browser] = await Promise.all([
      startSandboxProcess(['--webhook-retries', 'fast']),
      startReceiver(),
      launchBrowser(),
    ])
    await id('webhooks', 'register', '--url', receiver.url, '--events', 'transaction.*')
    ada = await id(
      'users',
      'create',
      '--email',
      'Ada.Lovelace@example.test',
      '--first-name',
      'Ada',
      '--last-name',
      'Lovelace',
    )
    adaWallet = await id(
      'wallets',
      'create',
      '--user',
      ada,
      '--currency',
      'USD',
      '--initial-balance',
      '100.00USD',
    )
    const bob = await id(
      'users',
      'create',
      '--email',
      'bob@example.test',
      '--first-name',
      'Bob',
      '--last-name',
      'B',
    )
    bobWallet = await id('wallets', 'create', '--user', bob, '--currency', 'USD')
    signedIn = await browser.newContext({viewport: {width: 1280, height: 800}})
    // What the browser says of its pages: a script or style refused by the Content-Security-Policy
    // would be a page that does not work.
    signedIn.on('console', (message) => {
      if (/Content[- ]Security[- ]Policy/i.test(message.text())) cspViolations.push(message.text())
    })
    await signIn(await signedIn.newPage())
  })

  afterAll(async () => {
    await browser?.close()
    await receiver?.close()
    await sandbox?.stop()
  })

  it('signs in with the API key and secret once, then keeps an HttpOnly cookie', async () => {
    const wrong = await (await browser.newContext()).newPage()
    await wrong.goto(ui('/sign-in'))
    await wrong.getByLabel('API key').fill(sandbox.credentials.apiKey)
    await wrong.getByLabel('API secret').fill('sk_test_not_the_secret_at_all')
    await wrong.getByRole('button', {name: 'Sign in'}).click()
    await wrong.getByRole('alert').filter({hasText: 'Invalid API key or API secret'}).waitFor()
    expect(await wrong.context().cookies()).toEqual([])
    await wrong.context().close()
    const cookies = await signedIn.cookies()
    expect(cookies).toHaveLength(1)
    expect(cookies[0]).toMatchObject({
      name: 'payctl_inspector',
      httpOnly: true,
      sameSite: 'Strict',
      path: INSPECTOR_PATH,
    })
    const page = await signedIn.newPage()
    await page.goto(ui('/users'))
    await page.getByRole('heading', {level: 1, name: 'Users'}).waitFor()
    // The page's scripts cannot read the cookie.
    expect(await page.evaluate('document.cookie')).toBe('')
    await page.close()
  })

  it('finds a user by id and by email, from the search box and the keyboard alone', async () => {
    const page = await signedIn.newPage()
    await page.goto(ui('/transactions'))
    await page.getByRole('heading', {level: 1, name: 'Transactions'}).waitFor()
    await page.keyboard.press('/')
    await page.keyboard.type(ada)
    await page.keyboard.press('Enter')
    await page.getByRole('heading', {level: 1, name: 'Ada Lovelace'}).waitFor()
    expect(page.url()).toBe(ui(`/users/${ada}`))
    await page.getByRole('link', {name: adaWallet}).first().waitFor()

    await page.getByRole('searchbox').fill('ada.lovelace@EXAMPLE.test')
    await page.getByRole('searchbox').press('Enter')
    await page.waitForURL(ui(`/users/${ada}`))
    // An address of a page opens that page by itself: it can be pasted into a ticket.
    const pasted = await signedIn.newPage()
    await pasted.goto(ui(`/wallets/${adaWallet}`))
    await pasted.getByRole('heading', {level: 1, name: `Wallet ${adaWallet}`}).waitFor()
    await expect.poll(() => pasted.getByText('100.00 USD').count()).toBeGreaterThan(0)
    await Promise.all([page.close(), pasted.close()])
  })

  it('shows a transfer made from the CLI without a reload', async () => {
    const page = await signedIn.newPage()
    await page.goto(ui(`/users/${ada}`))
    await page.getByRole('heading', {level: 1, name: 'Ada Lovelace'}).waitFor()
    await page.getByRole('status').filter({hasText: 'auto-updating'}).waitFor()
    // Gone if the page reloads.
    await page.evaluate('window.notReloaded = true')
    const txn = await id(
      'transactions',
      'create',
      '--method',
      'wallet',
      '--amount',
      '12.34USD',
      '--from',
      adaWallet,
      '--to',
      bobWallet,
    )
    const row = page.getByRole('row').filter({hasText: txn}).filter({hasText: 'transfer out'})
    await row.waitFor({timeout: 10_000})
    expect(await row.textContent()).toContain('-12.34 USD')
    await expect.poll(() => page.getByRole('cell', {name: '87.66 USD'}).count()).toBeGreaterThan(0)
    expect(await page.evaluate('window.notReloaded')).toBe(true)
    await page.close()
  })

  it('resends a delivery and shows its new attempt', async () => {
    const txn = await id(
      'transactions',
      'create',
      '--method',
      'wallet',
      '--amount',
      '1.00USD',
      '--from',
      adaWallet,
      '--to',
      bobWallet,
    )
    const listed = JSON.parse(
      (await cli('events', 'list', '--type', 'transaction.completed', '--json')).stdout,
    )
    const events = (Array.isArray(listed) ? listed : listed.events) as {id: string; data: {id?: string}}[]
    const event = events.find((e) => e.data.id === txn)!.id
    const before = receiver.received.length
    const page = await signedIn.newPage()
    await page.goto(ui(`/events/${event}`))
    const deliveries = page.getByRole('article')
    await expect.poll(() => deliveries.count()).toBe(1)
    await deliveries.first().getByText('delivered 200').waitFor()
    await page.getByRole('button', {name: 'Resend'}).click()
    await page.getByRole('status').filter({hasText: 'Resent: 1 new delivery'}).waitFor()
    await expect.poll(() => deliveries.count()).toBe(2)
    await expect.poll(() => deliveries.nth(1).getByText('delivered 200').count(), {timeout: 10_000}).toBe(1)
    expect(receiver.received.length).toBeGreaterThan(before)
    await page.close()
  })

  it('shows a round-up’s amounts in major units and a transaction’s in minor units, as each event says', async () => {
    const trigger = async (...args: string[]) =>
      JSON.parse(await id('webhooks', 'trigger', ...args, '--json')).id as string
    // 1.13 × 5 rounds up by 4.35.
    const roundup = await trigger(
      'roundupsvc.roundup.processed',
      '--set',
      'amount=1.13',
      '--set',
      'multiplier=5',
    )
    const card = await trigger('transaction.completed', '--set', 'amount=500')
    // 4.95 and 0.05 pending: Ada's transfer to Bob moves exactly 5.
    await id('roundups', 'enable', ada, '--multiplier', '5', '--destination-account', bobWallet)
    const purchase = (amount: string, pos: string) =>
      id(
        'roundups',
        'process',
        '--user',
        ada,
        '--amount',
        amount,
        '--merchant',
        'Corner Shop',
        '--transaction-id',
        pos,
      )
    await purchase('4.01', 'pos_1')
    await purchase('4.99', 'pos_2')
    const transfer = JSON.parse(await id('roundups', 'transfer', ada, '--json')).id as string
    const listed = JSON.parse(await id('events', 'list', '--type', 'roundupsvc.transfer.completed', '--json'))
    const events = (Array.isArray(listed) ? listed : listed.events) as {id: string; data: {id?: string}}[]
    const moved = events.find((e) => e.data.id === transfer)!.id

    const page = await signedIn.newPage()
    const errors: string[] = []
    page.on('pageerror', (err) => errors.push(err.message))
    /** The amounts the event's page lists, once it is drawn (a page that cannot be drawn: its error). */
    const amounts = async (event: string) => {
      await page.goto(ui(`/events/${event}`))
      const drawn = page.getByRole('heading', {level: 2, name: 'Data'})
      await expect.poll(async () => errors.join('\n') || (await drawn.count()), {timeout: 20_000}).toBe(1)
      const rows = await page.locator('dl.fields > div').allTextContents()
      return rows.filter((row) => / [A-Z]{3}$/.test(row))
    }
    expect(await amounts(moved)).toEqual(['Amount5.00 USD'])
    expect(await amounts(card)).toEqual(['Amount5.00 USD'])
    expect(await amounts(roundup)).toEqual(['Purchase1.13 USD', 'Round-up4.35 USD'])
    await page.close()
  })

  it('renders a name made of HTML as text: nothing in it runs', async () => {
    const xss = await id(
      'users',
      'create',
      '--email',
      'xss@example.test',
      '--first-name',
      '<img src=x onerror="window.pwned=1">',
      '--last-name',
      '<script>window.pwned=2</script>',
    )
    const page = await signedIn.newPage()
    await page.goto(ui(`/users/${xss}`))
    const heading = page.getByRole('heading', {level: 1})
    await heading.getByText('<img src=x onerror="window.pwned=1"> <script>window.pwned=2</script>').waitFor()
    await page.goto(ui('/users'))
    await page
      .getByRole('cell', {name: '<img src=x onerror="window.pwned=1"> <script>window.pwned=2</script>'})
      .waitFor()
    expect(await page.evaluate('window.pwned')).toBeUndefined()
    expect(await page.locator('main img, main script').count()).toBe(0)
    await page.close()
  })

  it('refuses its pages and their data to a browser without the cookie', async () => {
    const stranger = await browser.newContext()
    const page = await stranger.newPage()
    for (const path of [`/users/${ada}`, '/transactions', `/wallets/${adaWallet}`, '/requests']) {
      await page.goto(ui(path))
      expect(page.url()).toContain(`${INSPECTOR_PATH}/sign-in?next=`)
      expect(await page.content()).not.toContain('Lovelace')
    }
    const answers = await page.evaluate(
      async (paths) => {
        return Promise.all(
          paths.map(async (p) => {
            const res = await fetch(p)
            return {status: res.status, text: await res.text()}
          }),
        )
      },
      [
        `${INSPECTOR_PATH}/api/read/getUser?id=${ada}`,
        `${INSPECTOR_PATH}/api/read/listTransactions`,
        `${INSPECTOR_PATH}/api/search?q=${ada}`,
      ],
    )
    for (const a of answers) {
      expect(a.status).toBe(401)
      expect(a.text).not.toContain('Lovelace')
    }
    await stranger.close()
  })

  it('refuses a change without the CSRF token, and one posted from another site', async () => {
    const page = await signedIn.newPage()
    await page.goto(ui('/clock'))
    await page.getByRole('heading', {level: 1, name: 'Clock'}).waitFor()
    const before = await offset(page)
    const status = await page.evaluate(() =>
      fetch('/_sandbox/ui/api/clock/advance', {
        method: 'POST',
        headers: {'content-type': 'application/json'},
        body: '{"seconds":3600}',
      }).then((r) => r.status),
    )
    expect(status).toBe(403)
    // Another site's page posting a form at the inspector: the browser sends no cookie with it.
    const other = await signedIn.newPage()
    await other.setContent(
      `<form method="post" action="${ui('/api/clock/advance')}"><input name="seconds" value="3600"></form>`,
    )
    await Promise.all([other.waitForEvent('load'), other.evaluate('document.forms[0].submit()')])
    expect(await other.content()).toContain('SIGN_IN_REQUIRED')
    const after = await offset(page)
    expect(after).toBe(before)
    // With the page's own token, the same change goes through.
    await page.getByLabel("Move this partner's clock forward by").fill('2')
    await page.getByRole('button', {name: 'Advance'}).click()
    await page.getByRole('status').filter({hasText: 'fell due'}).waitFor()
    expect(await offset(page)).toBeGreaterThanOrEqual(before + 2 * 86_400)
    await Promise.all([page.close(), other.close()])
  })

  it('says it updates itself in words no payments person reads as production', async () => {
    const page = await signedIn.newPage()
    await page.goto(ui('/transactions'))
    const badge = page.getByRole('status').filter({hasText: 'auto-updating'})
    await badge.waitFor()
    expect(await badge.getAttribute('title')).toBe('This page updates itself as the sandbox changes')
    expect(await page.getByText('live', {exact: true}).count()).toBe(0)
    // Not the green of a good status.
    expect(await page.evaluate("getComputedStyle(document.querySelector('.live')).color")).not.toBe(
      'rgb(27, 122, 61)',
    )
    expect(await placeholderFits(page)).toEqual({placeholder: 'Id, email or name  ( / )', fits: true})
    await page.close()
  })

  it("shows a refund's card where the money went back to it", async () => {
    const deposit = await id(
      'transactions',
      'create',
      '--method',
      'card',
      '--amount',
      '30.00USD',
      '--to',
      adaWallet,
      '--payment-method',
      'pm_card_visa',
    )
    const refund = await id('transactions', 'refund', deposit, '--amount', '10.00USD')
    const page = await signedIn.newPage()
    await page.goto(ui('/transactions'))
    const row = page.getByRole('row').filter({hasText: refund})
    await row.waitFor()
    expect(await row.locator('td[data-label="From"]').textContent()).toBe(adaWallet)
    expect(await row.locator('td[data-label="To"]').textContent()).toBe('pm_card_visa')
    await page.goto(ui(`/transactions/${refund}`))
    const to = page.locator('dl.fields > div').filter({has: page.getByText('To', {exact: true})})
    await expect.poll(() => to.locator('dd').textContent()).toBe('pm_card_visa')
    await page.close()
  })

  it('breaks none of its own Content-Security-Policy on any page it showed', () => {
    expect(cspViolations).toEqual([])
  })

  it('reads in a 400-pixel-wide window without scrolling sideways', async () => {
    const narrow = await browser.newContext({
      viewport: {width: 400, height: 800},
      storageState: await signedIn.storageState(),
    })
    const page = await narrow.newPage()
    for (const path of [`/users/${ada}`, '/transactions', `/wallets/${adaWallet}`]) {
      await page.goto(ui(path))
      await page.getByRole('heading', {level: 1}).waitFor()
      await expect.poll(() => page.getByRole('row').count()).toBeGreaterThan(0)
      // Measured once the page has settled (its stylesheet applied, what loads after the first rows in):
      // a page that is wider keeps failing until the deadline.
      await expect
        .poll(() => page.evaluate('document.documentElement.scrollWidth'), {message: path})
        .toBeLessThanOrEqual(400)
      expect((await placeholderFits(page)).fits, path).toBe(true)
    }
    await narrow.close()
  })
})
