/**
 * The screenshots of docs/inspector.md: the inspector's main pages in headless Chromium, against a
 * sandbox process seeded with a support ticket's story (a card top-up, an ACH payment the bank
 * returned, a transfer, a partial refund, a webhook that failed once). Run after `npm run build`:
 *
 *   node scripts/inspector-screenshots.ts          (writes docs/inspector/*.png)
 *
 * Not part of the build or the tests: the pictures change only when the pages do.
 */
import {type ChildProcess, spawn} from 'node:child_process'
import {mkdirSync, mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {createServer} from 'node:http'
import type {AddressInfo} from 'node:net'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import {pathToFileURL} from 'node:url'
import {chromium, type Page} from 'playwright-core'

const ROOT = resolve(import.meta.dirname, '..')
const OUT = join(ROOT, 'docs', 'inspector')

type Client = {call: (id: string, input?: unknown) => Promise<Record<string, unknown>>}

/** `payctl sandbox start` on a free port, with a config dir of its own; resolves once it listens. */
async function startSandbox(configDir: string): Promise<{url: string; child: ChildProcess}> {
  const child = spawn(
    process.execPath,
    [
      join(ROOT, 'bin', 'run.js'),
      'sandbox',
      'start',
      '--port',
      '0',
      '--data',
      ':memory:',
      '--json',
      '--quiet',
    ].concat(['--rate-limit', 'off', '--settle-after', '1s', '--webhook-retries', 'fast']),
    {
      env: {...process.env, PAYCTL_CONFIG_DIR: configDir, NO_COLOR: '1'},
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  )
  const url = await new Promise<string>((resolveUrl, reject) => {
    let text = ''
    child.stdout!.on('data', (c: Buffer) => {
      text += c
      try {
        resolveUrl((JSON.parse(text) as {url: string}).url)
      } catch {
        // not a whole document yet
      }
    })
    child.once('exit', (code) => reject(new Error(`the sandbox exited with ${code}`)))
  })
  return {url, child}
}

/** A receiver that fails its first delivery and takes the others. */
async function receiver(): Promise<{url: string; close: () => void}> {
  let n = 0
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', () => res.writeHead(n++ === 0 ? 500 : 200).end())
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    close: () => server.close(),
  }
}

/** A customer's story, through payctl's own client; the ids the pictures show. */
async function seed(configDir: string, hook: string) {
  const lib = (await import(pathToFileURL(join(ROOT, 'dist', 'index.js')).href)) as {
    connect: (opts: {configDir: string}) => Client
  }
  const client = lib.connect({configDir})
  await client.call('createWebhook', {body: {url: hook, events: ['transaction.*']}})
  const user = (body: Record<string, string>) => client.call('createUser', {body})
  const ada = await user({email: 'ada@example.test', first_name: 'Ada', last_name: 'Lovelace'})
  const bob = await user({email: 'bob@example.test', first_name: 'Bob', last_name: 'Babbage'})
  await user({email: 'xss@example.test', first_name: '<img src=x onerror=alert(1)>', last_name: 'Mallory'})
  const usd = await client.call('createWallet', {body: {userId: ada.id, currency: 'USD'}})
  const bobs = await client.call('createWallet', {body: {userId: bob.id, currency: 'USD'}})
  const txn = (body: Record<string, unknown>) =>
    client.call('createTransaction', {body: {currency: 'USD', ...body}})
  const card = await txn({
    amount: 19390,
    method: 'card',
    destinationWalletId: usd.id,
    paymentMethodId: 'pm_card_visa',
  })
  await txn({amount: 4000, method: 'ach', destinationWalletId: usd.id, paymentMethodId: 'pm_ach_returned'})
  await txn({amount: 2500, method: 'wallet', sourceWalletId: usd.id, destinationWalletId: bobs.id})
  await client.call('refundTransaction', {params: {id: card.id}, body: {amount: 1000}})
  // A declined card, for the request log's errors.
  await txn({
    amount: 5000,
    method: 'card',
    destinationWalletId: usd.id,
    paymentMethodId: 'pm_card_declined',
  }).catch(() => undefined)
  // The ACH payment is returned once the clock passes its settlement; the deliveries retry.
  await new Promise((r) => setTimeout(r, 4_000))
  return {ada: String(ada.id), card: String(card.id)}
}

async function shoot(page: Page, url: string, name: string, ready: string): Promise<void> {
  await page.goto(url)
  await page.locator(ready).first().waitFor()
  await page.waitForTimeout(300)
  await page.screenshot({path: join(OUT, `${name}.png`)})
  console.log(`docs/inspector/${name}.png`)
}

async function main(): Promise<void> {
  const configDir = mkdtempSync(join(tmpdir(), 'payctl-screenshots-'))
  const hook = await receiver()
  const sandbox = await startSandbox(configDir)
  const browser = await chromium.launch({
    executablePath: process.env.PAYCTL_CHROMIUM ?? '/usr/bin/chromium',
    args: ['--no-sandbox'],
  })
  try {
    const ids = await seed(configDir, hook.url)
    const {credentials} = JSON.parse(readFileSync(join(configDir, 'sandbox.json'), 'utf8')) as {
      credentials: {apiKey: string; apiSecret: string}
    }
    mkdirSync(OUT, {recursive: true})
    const context = await browser.newContext({viewport: {width: 1280, height: 800}, timezoneId: 'UTC'})
    const page = await context.newPage()
    const ui = (path: string) => `${sandbox.url}/_sandbox/ui${path}`
    await page.goto(ui('/sign-in'))
    await page.getByLabel('API key').fill(credentials.apiKey)
    await page.screenshot({path: join(OUT, 'sign-in.png')})
    console.log('docs/inspector/sign-in.png')
    await page.getByLabel('API secret').fill(credentials.apiSecret)
    await page.getByRole('button', {name: 'Sign in'}).click()
    await page.waitForURL(ui(''))
    await shoot(page, ui(`/users/${ids.ada}`), 'user', 'main table tbody tr')
    await shoot(page, ui('/transactions'), 'transactions', 'main table tbody tr')
    const events = (await page.evaluate(
      `fetch('/_sandbox/ui/api/read/listEvents?transactionId=${ids.card}').then((r) => r.json())`,
    )) as {events: {id: string}[]}
    await shoot(page, ui(`/events/${events.events.at(-1)!.id}`), 'event', 'article')
    await shoot(page, ui('/requests'), 'requests', 'main table tbody tr')
    const narrow = await browser.newContext({
      viewport: {width: 400, height: 800},
      timezoneId: 'UTC',
      storageState: await context.storageState(),
    })
    await shoot(await narrow.newPage(), ui(`/users/${ids.ada}`), 'user-narrow', 'main table tbody tr')
  } finally {
    await browser.close()
    sandbox.child.kill('SIGTERM')
    hook.close()
    rmSync(configDir, {recursive: true, force: true})
  }
}

await main()
