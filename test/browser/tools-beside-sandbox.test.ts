import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import type {Browser} from 'playwright-core'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {INSPECTOR_PATH} from '../../src/contract/inspector.js'
import {browserTestsRun, launchBrowser} from '../helpers/browser.js'
import {payctl} from '../helpers/cli.js'
import {type SandboxProcess, startSandboxProcess} from '../helpers/sandbox.js'

/**
 * What sits beside a sandbox process, in a real browser: a web front-end on another local port
 * calling the API (CORS, opt-in per origin), tools loading the served OpenAPI document, and the
 * one-time sign-in link of `payctl sandbox ui`.
 */

/** A page whose script calls the sandbox (`?api=…&path=…&key=…`) and puts the outcome in its title. */
const PAGE = `<!doctype html><title></title><script>
const p = new URLSearchParams(location.search)
fetch(p.get('api') + p.get('path'), {headers: p.get('key') ? {authorization: 'Bearer ' + p.get('key')} : {}})
  .then(async (r) => { await r.text(); document.title = 'answered ' + r.status + ' ' + (r.headers.get('x-request-id') ?? '-') })
  .catch((e) => { document.title = 'blocked ' + e.name })
</script>`

/** A front-end's dev server: one page, on 127.0.0.1 and a port of its own. */
async function pageServer(): Promise<{server: Server; origin: string}> {
  const server = createServer((_req, res) => res.writeHead(200, {'content-type': 'text/html'}).end(PAGE))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`}
}

const runs = browserTestsRun()

describe.runIf(runs)('tools beside a sandbox process', () => {
  let sandbox: SandboxProcess
  let browser: Browser
  let allowed: {server: Server; origin: string}
  let other: {server: Server; origin: string}

  beforeAll(async () => {
    ;[allowed, other, browser] = await Promise.all([pageServer(), pageServer(), launchBrowser()])
    sandbox = await startSandboxProcess(['--cors', allowed.origin])
  }, 60_000)
  afterAll(async () => {
    await Promise.all([sandbox?.stop(), browser?.close()])
    for (const s of [allowed, other]) s?.server.close()
  })

  /** What the page of `origin` gets when its script calls `path` of the sandbox. */
  async function callFrom(origin: string, path: string, key?: string): Promise<string> {
    const page = await browser.newPage()
    try {
      const query = new URLSearchParams({api: sandbox.url, path, ...(key ? {key} : {})})
      await page.goto(`${origin}/?${query}`)
      await page.waitForFunction("document.title !== ''")
      return await page.title()
    } finally {
      await page.close()
    }
  }

  it('answers the page of an allowed origin, Authorization header and all, and lets it read the request id', async () => {
    const outcome = await callFrom(allowed.origin, '/v1/users', sandbox.credentials.secretKey)
    expect(outcome).toMatch(/^answered 200 req_\w+$/)
  })

  it('the browser keeps the answer from the page of any other origin', async () => {
    expect(await callFrom(other.origin, '/v1/users', sandbox.credentials.secretKey)).toBe('blocked TypeError')
  })

  it('serves its OpenAPI document at /openapi.json, naming its own address, to the allowed page too', async () => {
    const doc = (await (await fetch(`${sandbox.url}/openapi.json`)).json()) as {servers: {url: string}[]}
    expect(doc.servers.map((s) => s.url)).toEqual([sandbox.url])
    expect(await callFrom(allowed.origin, '/openapi.json')).toMatch(/^answered 200 /)
  })

  it('signs a browser in with the link of `sandbox ui`, once', async () => {
    const r = await payctl(['sandbox', 'ui', '--json'], {configDir: sandbox.configDir, timeoutMs: 60_000})
    expect(r.exitCode, r.stderr).toBe(0)
    const {url} = JSON.parse(r.stdout) as {url: string}
    const first = await browser.newContext()
    const page = await first.newPage()
    await page.goto(url)
    expect(new URL(page.url()).pathname).toBe(`${INSPECTOR_PATH}/`)
    await page.getByRole('heading', {level: 1, name: 'Transactions'}).waitFor()
    await first.close()

    const second = await browser.newContext()
    const again = await (await second.newPage()).goto(url)
    expect(again?.status()).toBe(401)
    expect(await again?.text()).toContain('used already or has expired')
    expect(await second.cookies()).toEqual([])
    await second.close()
  })
})
