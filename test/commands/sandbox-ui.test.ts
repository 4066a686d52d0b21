import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {INSPECTOR_PATH} from '../../src/contract/inspector.js'
import {cliFor} from '../helpers/cli.js'
import {type LocalSandbox, startLocalSandbox} from '../helpers/local-sandbox.js'

/** `payctl sandbox ui`: a one-time sign-in link, minted with the profile's credentials. */
describe('sandbox ui', () => {
  let sandbox: LocalSandbox
  let nowMs = Date.parse('2030-01-01T00:00:00Z')
  const cli = () => cliFor(sandbox.configDir, {timeoutMs: 30_000})
  const visit = (url: string) => fetch(url, {redirect: 'manual'})

  beforeAll(async () => {
    sandbox = await startLocalSandbox({now: () => nowMs})
  })
  afterAll(() => sandbox.stop())

  it('prints a link that signs a browser in once, and lands it on the inspector', async () => {
    const r = await cli()('sandbox', 'ui')
    expect(r.exitCode, r.stderr).toBe(0)
    const url = r.stdout.trim()
    expect(url).toMatch(new RegExp(`^${sandbox.url}${INSPECTOR_PATH}/link\\?token=[\\w-]{43}$`))
    const first = await visit(url)
    expect(first.status).toBe(303)
    expect(first.headers.get('location')).toBe(`${INSPECTOR_PATH}/`)
    const cookie = first.headers.get('set-cookie')!.split(';', 1)[0]!
    const page = await fetch(`${sandbox.url}${INSPECTOR_PATH}/api/session`, {headers: {cookie}})
    expect(await page.json()).toMatchObject({partnerId: sandbox.credentials.partnerId})
    const again = await visit(url)
    expect(again.status).toBe(401)
    expect(again.headers.get('set-cookie')).toBeNull()
    expect(await again.text()).toContain('used already or has expired')
  })

  it('--json gives the url and when it expires, a minute on', async () => {
    const r = await cli()('sandbox', 'ui', '--json')
    expect(r.exitCode, r.stderr).toBe(0)
    const link = JSON.parse(r.stdout)
    expect(Object.keys(link).sort()).toEqual(['expiresAt', 'url'])
    expect(link.expiresAt).toBe(new Date(nowMs + 60_000).toISOString())
  })

  it('refuses a link visited after its minute', async () => {
    const {url} = JSON.parse((await cli()('sandbox', 'ui', '--json')).stdout)
    nowMs += 60_000
    const late = await visit(url)
    expect(late.status).toBe(401)
    expect(late.headers.get('set-cookie')).toBeNull()
  })

  it('mints no link without the partner’s credentials', async () => {
    const res = await fetch(`${sandbox.url}${INSPECTOR_PATH}/links`, {method: 'POST'})
    expect(res.status).toBe(401)
    const forged = await fetch(`${sandbox.url}${INSPECTOR_PATH}/links`, {
      method: 'POST',
      headers: {authorization: 'Bearer not-a-token'},
    })
    expect(forged.status).toBe(401)
  })
})

describe('sandbox ui against a sandbox with no inspector', () => {
  it('says so, with how to get one', async () => {
    const sandbox = await startLocalSandbox({ui: false})
    try {
      const r = await cliFor(sandbox.configDir)('sandbox', 'ui', '--json')
      expect(r.exitCode).toBe(1)
      expect(JSON.parse(r.stdout || r.stderr).error).toMatchObject({code: 'INSPECTOR_OFF'})
    } finally {
      await sandbox.stop()
    }
  })
})
