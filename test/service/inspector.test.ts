import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {eventAmounts} from '../../src/contract/events/amounts.js'
import {INSPECTOR_PATH, type TimelinePage} from '../../src/contract/inspector.js'
import {formatMoney} from '../../src/contract/money/format.js'
import type {TimelineLine} from '../../src/contract/timeline/lines.js'
import {SESSION_IDLE_MS, SESSIONS_PER_PARTNER, Sessions} from '../../src/sandbox/inspector/sessions.js'
import {createPartner, start, type TestSandbox} from './helpers.js'
import {createTx, data, wallet} from './money-helpers.js'

/**
 * The inspector's server side, against a sandbox in this process: who may see what, what a change
 * needs, and the headers of every answer. The pages themselves are driven in a real browser in
 * test/browser/inspector.test.ts.
 */

interface Browser {
  cookie: string
  csrf: string
}

const UI = INSPECTOR_PATH

/** Fetch a path of the sandbox without following redirects, as a browser of `who` would. */
async function get(t: TestSandbox, path: string, who?: Browser, headers: Record<string, string> = {}) {
  return fetch(t.sb.url + path, {
    redirect: 'manual',
    headers: {...(who === undefined ? {} : {cookie: who.cookie}), ...headers},
  })
}

async function post(
  t: TestSandbox,
  path: string,
  who: Browser | undefined,
  opts: {csrf?: string; body?: unknown; headers?: Record<string, string>} = {},
) {
  return fetch(t.sb.url + path, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      'content-type': 'application/json',
      ...(who === undefined ? {} : {cookie: who.cookie}),
      ...(opts.csrf === undefined ? {} : {'x-csrf-token': opts.csrf}),
      ...opts.headers,
    },
    body: JSON.stringify(opts.body ?? {}),
  })
}

/** Sign in through the form, as a browser posts it. */
async function signIn(
  t: TestSandbox,
  apiKey = t.creds.apiKey,
  apiSecret = t.creds.apiSecret,
): Promise<Response> {
  return fetch(`${t.sb.url}${UI}/sign-in`, {
    method: 'POST',
    redirect: 'manual',
    headers: {'content-type': 'application/x-www-form-urlencoded', origin: t.sb.url},
    body: new URLSearchParams({api_key: apiKey, api_secret: apiSecret, next: `${UI}/users`}).toString(),
  })
}

async function browserOf(t: TestSandbox): Promise<Browser> {
  const res = await signIn(t)
  expect(res.status).toBe(303)
  const cookie = res.headers.get('set-cookie')!.split(';', 1)[0]!
  const session = await body(get(t, `${UI}/api/session`, {cookie, csrf: ''}))
  return {cookie, csrf: session.csrfToken}
}

/** A JSON answer, checked by expect() rather than by types. */
// biome-ignore lint/suspicious/noExplicitAny: bodies are checked by expect(), not by types
const body = async (res: Response | Promise<Response>): Promise<any> => (await res).json()

let t: TestSandbox
let operator: Browser

beforeAll(async () => {
  t = await start()
  operator = await browserOf(t)
})
afterAll(() => t.close())

describe('without a session', () => {
  it('sends every page to the sign-in form and refuses every read and the live stream', async () => {
    const user = await t.user({email: 'hidden@example.test'})
    for (const path of [UI, `${UI}/`, `${UI}/users/${user}`, `${UI}/transactions`]) {
      const res = await get(t, path)
      expect(res.status, path).toBe(303)
      expect(res.headers.get('location')).toMatch(new RegExp(`^${UI}/sign-in\\?next=`))
      expect(await res.text()).not.toContain(user)
    }
    for (const path of [
      `${UI}/api/session`,
      `${UI}/api/read/getUser?id=${user}`,
      `${UI}/api/read/listUsers`,
      `${UI}/api/search?q=hidden@example.test`,
      `${UI}/api/users/${user}/timeline`,
      `${UI}/api/stream`,
    ]) {
      for (const cookie of [
        undefined,
        'payctl_inspector=forged',
        `payctl_inspector=${operator.cookie.split('=')[1]}x`,
      ]) {
        const res = await get(t, path, cookie === undefined ? undefined : {cookie, csrf: ''})
        expect(res.status, `${path} ${cookie}`).toBe(401)
        const text = await res.text()
        expect(text).toContain('SIGN_IN_REQUIRED')
        expect(text).not.toContain('hidden@example.test')
      }
    }
  })

  it('refuses a wrong secret, a live key and a form posted from another site, and sets no cookie', async () => {
    const wrong = await signIn(t, t.creds.apiKey, `${t.creds.apiSecret}x`)
    expect(wrong.status).toBe(401)
    expect(wrong.headers.get('set-cookie')).toBeNull()
    expect(await wrong.text()).toContain('Invalid API key or API secret')
    expect((await signIn(t, 'pk_live_abc', 'sk_live_abcdefghijklmnopqrstuvwxyz')).status).toBe(401)
    const crossSite = await fetch(`${t.sb.url}${UI}/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: {'content-type': 'application/x-www-form-urlencoded', origin: 'http://evil.example'},
      body: new URLSearchParams({api_key: t.creds.apiKey, api_secret: t.creds.apiSecret}).toString(),
    })
    expect(crossSite.status).toBe(403)
    expect(crossSite.headers.get('set-cookie')).toBeNull()
  })
})

describe('signing in', () => {
  it('takes the API key and secret once, then an HttpOnly SameSite=Strict cookie for the inspector alone', async () => {
    const res = await signIn(t)
    expect(res.status).toBe(303)
    expect(res.headers.get('location')).toBe(`${UI}/users`)
    const cookie = res.headers.get('set-cookie')!
    expect(cookie).toMatch(/^payctl_inspector=[\w-]{43}; /)
    expect(cookie).toContain('HttpOnly')
    expect(cookie).toContain('SameSite=Strict')
    expect(cookie).toContain(`Path=${UI}`)
    // The secret is in no answer: not the cookie, not the page, not the session.
    const browser = await browserOf(t)
    const page = await (await get(t, `${UI}/users`, browser)).text()
    const session = await (await get(t, `${UI}/api/session`, browser)).text()
    for (const text of [cookie, page, session]) expect(text).not.toContain(t.creds.apiSecret)
    expect(JSON.parse(session)).toMatchObject({partnerId: t.creds.partnerId, csrfToken: expect.any(String)})
  })

  it('sends the redirect of a sign-in only to a page of the inspector', async () => {
    const res = await fetch(`${t.sb.url}${UI}/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: {'content-type': 'application/x-www-form-urlencoded'},
      body: new URLSearchParams({
        api_key: t.creds.apiKey,
        api_secret: t.creds.apiSecret,
        next: '//evil.example/x',
      }).toString(),
    })
    expect(res.headers.get('location')).toBe(UI)
  })
})

describe('every answer of the inspector', () => {
  it('carries a Content-Security-Policy that forbids inline scripts and anything from elsewhere', async () => {
    const answers = [
      await get(t, UI),
      await get(t, `${UI}/sign-in`),
      await get(t, `${UI}/users`, operator),
      await get(t, `${UI}/api/read/listUsers`, operator),
      await get(t, `${UI}/api/read/listUsers`),
      await get(t, `${UI}/api/read/createUser`, operator),
      await get(t, `${UI}/api/nothing-here`, operator),
      await get(t, `${UI}/assets/inspector.css`),
      await get(t, `${UI}/assets/nothing.js`),
      await post(t, `${UI}/api/clock/advance`, operator),
    ]
    for (const res of answers) {
      const csp = res.headers.get('content-security-policy') ?? ''
      expect(csp, res.url).toContain("default-src 'self'")
      expect(csp).toContain("script-src 'self'")
      expect(csp).toContain("style-src 'self'")
      expect(csp).not.toContain('unsafe-inline')
      expect(csp).toContain("frame-ancestors 'none'")
      expect(res.headers.get('x-content-type-options')).toBe('nosniff')
    }
  })

  it('reads only the operations it lists: no write operation runs through a read', async () => {
    const res = await get(t, `${UI}/api/read/createUser`, operator)
    expect(res.status).toBe(404)
  })
})

describe('a change', () => {
  it('is refused without the CSRF token, with a wrong one, or from another site, and changes nothing', async () => {
    const before = (await t.get('/_sandbox/clock', {auth: t.creds.secretKey})).body.offsetSeconds
    const refusals = [
      await post(t, `${UI}/api/clock/advance`, operator, {body: {seconds: 3600}}),
      await post(t, `${UI}/api/clock/advance`, operator, {body: {seconds: 3600}, csrf: `${operator.csrf}x`}),
      await post(t, `${UI}/api/clock/advance`, operator, {
        body: {seconds: 3600},
        csrf: operator.csrf,
        headers: {origin: 'http://evil.example', 'sec-fetch-site': 'cross-site'},
      }),
      await post(t, `${UI}/sign-out`, operator),
    ]
    for (const res of refusals) {
      expect(res.status).toBe(403)
      expect(await res.text()).toContain('CSRF_TOKEN_INVALID')
    }
    expect((await t.get('/_sandbox/clock', {auth: t.creds.secretKey})).body.offsetSeconds).toBe(before)
    expect((await get(t, `${UI}/api/session`, operator)).status).toBe(200)
  })

  it('with a body the inspector cannot read is refused as such, not as a failure of its own', async () => {
    const res = await post(t, `${UI}/api/clock/advance`, operator, {
      csrf: operator.csrf,
      headers: {'content-type': 'text/plain'},
    })
    expect(res.status).toBe(415)
    expect((await body(res)).error.code).toBe('UNSUPPORTED_MEDIA_TYPE')
  })

  it('with the token advances the partner clock', async () => {
    const before = (await t.get('/_sandbox/clock', {auth: t.creds.secretKey})).body.offsetSeconds as number
    const res = await post(t, `${UI}/api/clock/advance`, operator, {
      body: {seconds: 3600},
      csrf: operator.csrf,
    })
    expect(res.status).toBe(200)
    expect((await body(res)).offsetSeconds).toBeGreaterThanOrEqual(before + 3600)
  })
})

describe('partners', () => {
  it("see only their own records, and a deleted partner's sessions end with it", async () => {
    const alice = await createPartner(t, 'inspector-alice')
    const theirs = await alice.user({email: 'alice-customer@example.test'})
    const mine = await t.user({email: 'operator-customer@example.test'})
    const browser = await browserOf(alice)
    expect((await get(t, `${UI}/api/read/getUser?id=${theirs}`, browser)).status).toBe(200)
    const other = await get(t, `${UI}/api/read/getUser?id=${mine}`, browser)
    expect(other.status).toBe(404)
    const search = await body(get(t, `${UI}/api/search?q=${mine}`, browser))
    expect(search.kind).toBe('none')
    const byEmail = await body(get(t, `${UI}/api/search?q=operator-customer@example.test`, browser))
    expect(byEmail.kind).toBe('none')
    const users = await body(get(t, `${UI}/api/read/listUsers`, browser))
    expect(users.users.map((u: {id: string}) => u.id)).toEqual([theirs])

    const deleted = await t.call('DELETE', '/_sandbox/partners/inspector-alice', {auth: t.creds.secretKey})
    expect(deleted.status).toBe(200)
    expect((await get(t, `${UI}/api/session`, browser)).status).toBe(401)
    expect((await get(t, `${UI}/users`, browser)).status).toBe(303)
  })
})

describe('sessions', () => {
  it("of a partner signing in a thousand times end oldest first, and no other partner's", async () => {
    const noisy = await createPartner(t, 'inspector-noisy')
    const quiet = await createPartner(t, 'inspector-quiet')
    const quietBrowser = await browserOf(quiet)
    const cookies: string[] = []
    for (let i = 0; i < 1_001; i++) {
      const res = await signIn(noisy)
      expect(res.status).toBe(303)
      cookies.push(res.headers.get('set-cookie')!.split(';', 1)[0]!)
    }
    const live = async (cookie: string) => (await get(t, `${UI}/api/session`, {cookie, csrf: ''})).status
    expect(await live(quietBrowser.cookie)).toBe(200)
    expect(await live(operator.cookie)).toBe(200)
    // The noisy partner keeps its newest SESSIONS_PER_PARTNER; the one before them has ended.
    const kept = cookies.slice(-SESSIONS_PER_PARTNER)
    for (const cookie of kept) expect(await live(cookie)).toBe(200)
    for (const cookie of [cookies[0]!, cookies.at(-SESSIONS_PER_PARTNER - 1)!])
      expect(await live(cookie)).toBe(401)
  })

  it('past the bound of the whole sandbox refuse a new one rather than end another partner’s', () => {
    let now = 0
    const sessions = new Sessions(() => now, {perPartner: 2, total: 4})
    const first = [sessions.open('a'), sessions.open('a'), sessions.open('b')]
    now += 1_000
    const second = [sessions.open('b')]
    expect(first.concat(second).every((s) => s !== undefined)).toBe(true)
    // Full: a partner without a session here is refused; one at its own bound gives up its oldest.
    expect(sessions.open('c')).toBeUndefined()
    const again = sessions.open('a')!
    expect(sessions.find(first[0]!.cookie)).toBeUndefined()
    expect(sessions.find(again.cookie)?.session.partnerId).toBe('a')
    for (const s of [first[1], first[2], second[0]]) expect(sessions.find(s!.cookie)).toBeDefined()
    // Sessions idle past SESSION_IDLE_MS give their places up to new ones.
    now += SESSION_IDLE_MS + 1
    expect(sessions.open('c')?.session.partnerId).toBe('c')
  })
})

describe('a page', () => {
  it('comes with the data of its first table, which no value can break out of', async () => {
    const name = '</script><script>alert(1)</script>'
    const user = await t.user({email: 'breakout@example.test', first_name: name, last_name: '<!--'})
    const html = await (await get(t, `${UI}/users/${user}`, operator)).text()
    // The bundle and the data block: no other script.
    expect(html.match(/<script/g)).toHaveLength(2)
    const block = /<script type="application\/json" id="payctl-preload">(.*?)<\/script>/s.exec(html)
    const preloaded = JSON.parse(block![1]!)
    expect(Object.keys(preloaded)).toEqual([
      `/read/getUser?id=${user}`,
      `/read/listWallets?userId=${user}&limit=100`,
      `/users/${user}/timeline`,
    ])
    expect(preloaded[`/read/getUser?id=${user}`]).toEqual(
      await body(get(t, `${UI}/api/read/getUser?id=${user}`, operator)),
    )
    expect(preloaded[`/read/getUser?id=${user}`].first_name).toBe(name)
  })

  it("of another partner's user comes with none of its data", async () => {
    const bob = await createPartner(t, 'inspector-bob')
    const browser = await browserOf(bob)
    const user = await t.user({email: 'not-bobs@example.test'})
    const html = await (await get(t, `${UI}/users/${user}`, browser)).text()
    expect(html).not.toContain('not-bobs@example.test')
    const block = /<script type="application\/json" id="payctl-preload">(.*?)<\/script>/s.exec(html)
    // What the page then asks for itself is refused as for an id nobody has; the list of the
    // user's wallets, partner-scoped, is empty.
    expect(JSON.parse(block![1]!)).toEqual({
      [`/read/listWallets?userId=${user}&limit=100`]: {wallets: [], hasMore: false, nextCursor: null},
    })
  })
})

describe('an event page', () => {
  /** What the event page lists of an event's amounts, from the inspector's answer about it. */
  const amountsShown = async (eventId: string) => {
    const e = await body(get(t, `${UI}/api/read/getEvent?id=${eventId}`, operator))
    return eventAmounts(e.event, e.data).map(({label, amount, currency}) => [
      label,
      amount === undefined || currency === undefined ? '—' : formatMoney(amount, currency),
    ])
  }
  const trigger = async (event: string, set: Record<string, unknown> = {}) => {
    const res = await t.post('/_sandbox/trigger', {event, set})
    expect(res.status, res.text).toBe(201)
    return res.body as {event: {id: string; data: Record<string, unknown>}; objects: Record<string, string>}
  }
  const latest = async (type: string, userId: string) =>
    (await body(get(t, `${UI}/api/read/listEvents?type=${type}&userId=${userId}&limit=1`, operator)))
      .events[0].id as string

  it('reads the amounts of every event that has some in the unit of its record', async () => {
    for (const event of [
      'transaction.completed',
      'transaction.failed',
      'transfer.completed',
      'transfer.failed',
      'walletsvc.payment.completed',
      'walletsvc.p2p.sent',
    ]) {
      expect(await amountsShown((await trigger(event, {amount: 500})).event.id), event).toEqual([
        ['Amount', '5.00 USD'],
      ])
    }
    const bnpl = {amount: 12_000}
    expect(await amountsShown((await trigger('bnplsvc.payment.created', bnpl)).event.id)).toEqual([
      ['Amount', '120.00 USD'],
      ['Paid', '0.00 USD'],
      ['Outstanding', '120.00 USD'],
    ])
    expect(await amountsShown((await trigger('bnplsvc.payment.completed', bnpl)).event.id)).toEqual([
      ['Amount', '120.00 USD'],
      ['Paid', '120.00 USD'],
      ['Outstanding', '0.00 USD'],
    ])
    expect(await amountsShown((await trigger('bnplsvc.payment.failed', bnpl)).event.id)).toEqual([
      ['Amount', '120.00 USD'],
      ['Paid', '0.00 USD'],
      ['Outstanding', '0.00 USD'],
    ])
    for (const event of ['wallet.created', 'walletsvc.card.created'])
      expect(await amountsShown((await trigger(event)).event.id), event).toEqual([])
  })

  it('reads a round-up’s major units as such: 4.35 is 4.35, and 5 is 5.00, not 0.05', async () => {
    // 1.13 × 5 rounds up by 4.35, which the common API's event gives in cents (435).
    const processed = await trigger('roundupsvc.roundup.processed', {amount: 1.13, multiplier: 5})
    expect(processed.event.data).toMatchObject({amount: 1.13, roundup_amount: 4.35})
    expect(await amountsShown(processed.event.id)).toEqual([
      ['Purchase', '1.13 USD'],
      ['Round-up', '4.35 USD'],
    ])
    const common = await latest('roundup.processed', processed.objects.user!)
    expect(await amountsShown(common)).toEqual([['Round-up', '4.35 USD']])

    // 4.95 and 0.05 pending: the transfer moves exactly 5.
    const user = await t.user()
    await wallet(t, 'USD', 10_000, user)
    const enabled = await t.post(`/v1/roundupsvc/users/${user}/roundups/enable`, {
      multiplier: 5,
      destination_account_id: await wallet(t, 'USD', 0),
    })
    expect(enabled.status, enabled.text).toBe(200)
    const purchase = async (amount: number, pos: string) => {
      const res = await t.post('/v1/transactions/process', {
        user_id: user,
        amount,
        merchant_name: 'Corner Shop',
        transaction_id: `${user}_${pos}`,
      })
      expect(res.status, res.text).toBe(200)
    }
    await purchase(4.01, 'pos_1')
    await purchase(4.99, 'pos_2')
    const transfer = await t.post(`/v1/roundupsvc/users/${user}/roundups/transfer`)
    expect(transfer.status, transfer.text).toBe(201)
    expect(data(transfer).amount).toBe(5)
    expect(await amountsShown(await latest('roundupsvc.transfer.completed', user))).toEqual([
      ['Amount', '5.00 USD'],
    ])
  })
})

describe('search', () => {
  it('opens the page of an id of each kind, and of an email in any case', async () => {
    const user = await t.user({email: 'Grace.Hopper@example.test', first_name: 'Grace', last_name: 'Hopper'})
    const w = await wallet(t, 'USD', 10_000, user)
    const other = await wallet(t, 'USD', 0)
    const txn = data(
      await createTx(t, {
        amount: 2500,
        currency: 'USD',
        method: 'wallet',
        sourceWalletId: w,
        destinationWalletId: other,
      }),
    )
    const events = await body(get(t, `${UI}/api/read/listEvents?walletId=${w}`, operator))
    const evt = events.events[0].id as string
    const find = (q: string) => body(get(t, `${UI}/api/search?q=${encodeURIComponent(q)}`, operator))
    expect(await find(user)).toEqual({kind: 'found', path: `${UI}/users/${user}`})
    expect(await find(w)).toEqual({kind: 'found', path: `${UI}/wallets/${w}`})
    expect(await find(txn.id)).toEqual({kind: 'found', path: `${UI}/transactions/${txn.id}`})
    expect(await find(evt)).toEqual({kind: 'found', path: `${UI}/events/${evt}`})
    expect(await find(' grace.hopper@EXAMPLE.test ')).toEqual({kind: 'found', path: `${UI}/users/${user}`})
    expect((await find('usr_000000000000000000000000')).kind).toBe('none')
    const request = (await t.get('/_sandbox/logs?limit=1', {auth: t.creds.secretKey})).body.entries[0]
      .requestId
    expect(await find(request)).toEqual({kind: 'found', path: `${UI}/requests/${request}`})
  })
})

describe('the timeline of a user', () => {
  it('pages through every ledger line and event once, newest first, each balance the one before it moved', async () => {
    const user = await t.user({email: 'busy@example.test'})
    const w = await wallet(t, 'USD', 0, user)
    for (let i = 0; i < 60; i++) {
      const res = await createTx(t, {
        amount: 100 + i,
        currency: 'USD',
        method: 'card',
        destinationWalletId: w,
        paymentMethodId: 'pm_card_visa',
      })
      expect(res.status).toBe(201)
    }
    const read = async (events: boolean) => {
      const lines: TimelineLine[] = []
      let cursor: string | null = null
      do {
        const query = new URLSearchParams(events ? {events: '1'} : {})
        if (cursor !== null) query.set('cursor', cursor)
        const path: string = `${UI}/api/users/${user}/timeline?${query}`
        const page = (await body(get(t, path, operator))) as TimelinePage<TimelineLine>
        expect(page.lines.length).toBeLessThanOrEqual(50)
        lines.push(...page.lines)
        cursor = page.nextCursor
      } while (cursor !== null)
      return lines
    }
    const seen = await read(true)
    // Without the event lines: the lines of money alone, each saying how the webhooks about it fared.
    const money = await read(false)
    expect(money).toEqual(seen.filter((l) => l.source !== 'event'))
    expect(money.filter((l) => l.source === 'ledger').every((l) => l.webhook === 'no webhook')).toBe(true)
    // Each top-up moved the wallet once: a line of its ledger, with the balance it left.
    const moved = seen.filter((l) => l.source === 'ledger')
    expect(moved).toHaveLength(60)
    expect(seen.filter((l) => l.source === 'transaction')).toEqual([])
    expect(new Set(moved.map((l) => l.id)).size).toBe(60)
    const events = (await t.get(`/v1/events?userId=${user}&limit=100`)).body.data
    expect(seen.filter((l) => l.source === 'event')).toHaveLength(events.events.length)
    const times = seen.map((l) => Date.parse(l.at))
    expect(times).toEqual([...times].sort((a, b) => b - a))
    expect(moved[0]).toMatchObject({what: 'card top-up', status: 'completed', currency: 'USD'})
    // No line lost or told twice across the pages: each balance is the older one moved by the line.
    const total = (l: TimelineLine) => Number(l.balanceAfter!.total)
    expect(total(moved[0]!)).toBe((await t.get(`/v1/wallets/${w}`)).body.data.balance.total)
    for (let i = 0; i + 1 < moved.length; i++)
      expect(total(moved[i]!)).toBe(total(moved[i + 1]!) + Number(moved[i]!.amount))
    expect(total(moved.at(-1)!)).toBe(Number(moved.at(-1)!.amount))
  })
})

describe('the request log', () => {
  it('holds none of the inspector’s own requests', async () => {
    await get(t, `${UI}/api/read/listUsers`, operator)
    const entries = (await t.get('/_sandbox/logs?limit=100', {auth: t.creds.secretKey})).body.entries as {
      path: string
    }[]
    expect(entries.length).toBeGreaterThan(0)
    expect(entries.filter((e) => e.path.startsWith(UI))).toEqual([])
  })
})

describe('--no-ui', () => {
  it('serves no inspector at all', async () => {
    const off = await start({ui: false})
    try {
      const res = await get(off, UI)
      expect(res.status).toBe(404)
      expect(await res.text()).not.toContain('<html')
    } finally {
      await off.close()
    }
  })
})

describe('the live stream', () => {
  it("tells an open page of its partner's events by their ids and the ids they are about", async () => {
    // A sandbox of its own: this file's has spent its rate limit.
    const own = await start()
    const page = await browserOf(own)
    const from = await wallet(own, 'USD', 10_000)
    const to = await wallet(own, 'USD', 0)
    const aborting = new AbortController()
    const res = await fetch(`${own.sb.url}${UI}/api/stream`, {
      headers: {cookie: page.cookie},
      signal: aborting.signal,
    })
    expect(res.status).toBe(200)
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader()
    let text = ''
    const change = /event: change\ndata: (.*)\n/
    const until = async (seen: string | RegExp) => {
      while (typeof seen === 'string' ? !text.includes(seen) : !seen.test(text))
        text += (await reader.read()).value ?? ''
    }
    try {
      await until(': connected')
      const txn = data(
        await createTx(own, {
          amount: 100,
          currency: 'USD',
          method: 'wallet',
          sourceWalletId: from,
          destinationWalletId: to,
        }),
      )
      await until(change)
      const about = JSON.parse(change.exec(text)![1]!).about as string[]
      expect(about).toEqual(expect.arrayContaining([txn.id, from, to]))
      expect(about.some((id) => id.startsWith('evt_'))).toBe(true)
    } finally {
      aborting.abort()
      await own.close()
    }
  })
})
