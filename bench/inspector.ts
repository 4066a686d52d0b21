/**
 * The browser inspector's first page for a partner with 10,000 transactions, in headless
 * Chromium (playwright-core) against a sandbox process (data file, rate limit off): milliseconds
 * from navigation start to the first table row on screen, for the transactions page (the
 * inspector's home) and for the page of the user those transactions belong to (their wallets and
 * the first page of their timeline). The rest is paged.
 *
 *   npm run bench:inspector
 *   node bench/inspector.ts --transactions 10000 --runs 5
 *
 * The browser signs in once; each run opens a new tab at the page's address (the bundle then
 * comes from the browser's cache after a 304, as for a person who keeps the inspector open). One
 * run of each page first (warm-up), then the pages take turns `--runs` times; figures are medians.
 * Not a test: it prints figures.
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {parseArgs} from 'node:util'
import {chromium, type Page} from 'playwright-core'
import {median, seedUser, startSandbox, verdict} from './lib.ts'

const {values} = parseArgs({
  options: {
    transactions: {type: 'string', default: '10000'},
    runs: {type: 'string', default: '5'},
    concurrency: {type: 'string', default: '32'},
    browser: {type: 'string', default: process.env.PAYCTL_CHROMIUM ?? '/usr/bin/chromium'},
  },
})
const TRANSACTIONS = Number(values.transactions)
const TARGET_MS = 300

/**
 * Noted in the page before its own scripts run: when the first row of a table is in the page.
 * performance.now() counts from the navigation's start.
 */
const FIRST_ROW = `
  new MutationObserver((_, observer) => {
    if (document.querySelector('main table tbody tr') === null) return
    window.__firstRowMs = performance.now()
    observer.disconnect()
  }).observe(document, {childList: true, subtree: true})
`

/** Milliseconds from navigation start to the first table row of `url`, in a new tab. */
async function firstRow(newPage: () => Promise<Page>, url: string): Promise<number> {
  const page = await newPage()
  try {
    await page.goto(url)
    // A function, not a string: the inspector's Content-Security-Policy forbids evaluating text.
    const noted = () => (globalThis as {__firstRowMs?: number}).__firstRowMs
    await page.waitForFunction(noted, undefined, {timeout: 30_000})
    return (await page.evaluate(noted)) as number
  } finally {
    await page.close()
  }
}

async function main(): Promise<void> {
  const sandbox = await startSandbox()
  const browser = await chromium.launch({
    executablePath: values.browser,
    headless: true,
    args: ['--no-sandbox'],
  })
  try {
    const seeding = performance.now()
    const user = await seedUser(sandbox.configDir, TRANSACTIONS, Number(values.concurrency))
    console.log(
      `${TRANSACTIONS} card top-ups of one user in ${((performance.now() - seeding) / 1000).toFixed(1)} s`,
    )
    // The operator's credentials, from the state file `sandbox start` wrote (mode 0600).
    const {credentials} = JSON.parse(readFileSync(join(sandbox.configDir, 'sandbox.json'), 'utf8')) as {
      credentials: {apiKey: string; apiSecret: string}
    }
    const context = await browser.newContext({viewport: {width: 1280, height: 800}})
    await context.addInitScript(FIRST_ROW)
    const signIn = await context.newPage()
    await signIn.goto(`${sandbox.url}/_sandbox/ui/sign-in`)
    await signIn.getByLabel('API key').fill(credentials.apiKey)
    await signIn.getByLabel('API secret').fill(credentials.apiSecret)
    await signIn.getByRole('button', {name: 'Sign in'}).click()
    await signIn.waitForURL(`${sandbox.url}/_sandbox/ui`)
    await signIn.close()

    const cases = {
      'transactions (the home page)': `${sandbox.url}/_sandbox/ui/transactions`,
      "the user's page (wallets, timeline)": `${sandbox.url}/_sandbox/ui/users/${user}`,
    }
    const figures = new Map<string, number[]>()
    const newPage = () => context.newPage()
    for (const url of Object.values(cases)) await firstRow(newPage, url) // warm-up
    for (let i = 0; i < Number(values.runs); i++) {
      for (const [name, url] of Object.entries(cases)) {
        figures.set(name, [...(figures.get(name) ?? []), await firstRow(newPage, url)])
      }
    }
    console.log()
    for (const [name, ms] of figures)
      console.log(
        `${name.padEnd(38)} first table row ${median(ms).toFixed(0)} ms (runs: ${ms.map((m) => m.toFixed(0)).join(', ')})`,
      )
    console.log('\nTargets:')
    for (const [name, ms] of figures) {
      const m = median(ms)
      console.log(
        verdict(
          `${name}, navigation start to table shown`,
          `${m.toFixed(0)} ms`,
          `≤ ${TARGET_MS} ms`,
          m <= TARGET_MS,
        ),
      )
    }
  } finally {
    await browser.close()
    await sandbox.stop()
  }
}

await main()
