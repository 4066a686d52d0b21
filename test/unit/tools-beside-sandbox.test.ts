import {describe, expect, it} from 'vitest'
import {openerOf, opensBrowser} from '../../src/cli/local-sandbox/open-browser.js'
import {corsOriginProblem} from '../../src/contract/cors-origin.js'
import {isLoopbackAddress} from '../../src/sandbox/http/local-address.js'
import {LINK_TTL_MS, LINKS_PER_PARTNER, SignInLinks} from '../../src/sandbox/inspector/links.js'

describe('a socket from loopback', () => {
  it('is 127.0.0.0/8 or ::1, also mapped into IPv6', () => {
    for (const address of ['127.0.0.1', '127.3.4.5', '::1', '::ffff:127.0.0.1'])
      expect(isLoopbackAddress(address), address).toBe(true)
  })

  it('is no other address, nor an unknown one', () => {
    for (const address of [
      '10.0.0.7',
      '192.168.1.2',
      '::ffff:10.0.0.7',
      'fe80::1',
      '0.0.0.0',
      '::',
      '',
      undefined,
    ])
      expect(isLoopbackAddress(address), String(address)).toBe(false)
  })
})

describe('sign-in links', () => {
  it('sign their partner in once', () => {
    const links = new SignInLinks(() => 1_000)
    const {token, expiresAtMs} = links.mint('ptn_a')
    expect(expiresAtMs).toBe(1_000 + LINK_TTL_MS)
    expect(links.redeem(token)).toBe('ptn_a')
    expect(links.redeem(token)).toBeUndefined()
  })

  it('expire a minute after they are made, and are gone then', () => {
    let now = 0
    const links = new SignInLinks(() => now)
    const {token} = links.mint('ptn_a')
    now = LINK_TTL_MS
    expect(links.redeem(token)).toBeUndefined()
    expect(links.size).toBe(0)
  })

  it('refuse what no link was made for', () => {
    const links = new SignInLinks()
    links.mint('ptn_a')
    for (const token of ['', 'nope', undefined, 42, ['x']]) expect(links.redeem(token)).toBeUndefined()
  })

  it('keep a bounded number per partner, and end with their partner', () => {
    const links = new SignInLinks()
    const first = links.mint('ptn_a')
    for (let i = 1; i < LINKS_PER_PARTNER; i++) links.mint('ptn_a')
    const other = links.mint('ptn_b')
    links.mint('ptn_a')
    expect(links.redeem(first.token)).toBeUndefined()
    expect(links.size).toBe(LINKS_PER_PARTNER + 1)
    links.endPartner('ptn_b')
    expect(links.redeem(other.token)).toBeUndefined()
  })
})

describe('sandbox ui opens a browser', () => {
  const person = {stdoutIsTTY: true, env: {}, json: false, browser: true}

  it('only for a person at a terminal', () => {
    expect(opensBrowser(person)).toBe(true)
    expect(opensBrowser({...person, stdoutIsTTY: false})).toBe(false)
    expect(opensBrowser({...person, env: {CI: 'true'}})).toBe(false)
    expect(opensBrowser({...person, json: true})).toBe(false)
    expect(opensBrowser({...person, browser: false})).toBe(false)
  })

  it("with the system's opener", () => {
    expect(openerOf('http://127.0.0.1:1/x', 'linux')).toEqual(['xdg-open', ['http://127.0.0.1:1/x']])
    expect(openerOf('http://127.0.0.1:1/x', 'darwin')).toEqual(['open', ['http://127.0.0.1:1/x']])
  })
})

describe('a CORS origin', () => {
  it('is a scheme, host and port as a browser sends it', () => {
    expect(corsOriginProblem('http://localhost:3000')).toBeUndefined()
    expect(corsOriginProblem('https://app.example')).toBeUndefined()
  })

  it('is never *, null, a path or another scheme', () => {
    expect(corsOriginProblem('*')).toMatch(/not an origin/)
    expect(corsOriginProblem('null')).toMatch(/not an origin/)
    expect(corsOriginProblem('http://localhost:3000/')).toMatch(/write it as http:\/\/localhost:3000$/)
    expect(corsOriginProblem('localhost:3000')).toBeDefined()
    expect(corsOriginProblem('file:///tmp/x')).toBeDefined()
  })
})
