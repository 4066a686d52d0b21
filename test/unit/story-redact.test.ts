import {describe, expect, it} from 'vitest'
import {Redactor} from '../../src/core/index.js'

/** Free text of a customer's story (descriptions, notes, delivery errors) on its way into a sandbox. */
describe('the redaction of free text', () => {
  const r = new Redactor(Buffer.alloc(32, 7))

  it('keeps only the origin of a URL it quotes: a path or query may carry a token', () => {
    const out = r.text(
      'HTTP 302: redirects are not followed (Location: https://hooks.shop.example/t/tok_9f8e7d?secret=abc123&x=1)',
    )
    expect(out).toBe('HTTP 302: redirects are not followed (Location: https://hooks.shop.example/…)')
  })

  it('redacts every email it quotes, not only the customer’s', () => {
    const out = r.text('Refund asked by grace.hopper+shop@navy.example, see ticket')
    expect(out).not.toContain('grace')
    expect(out).toMatch(/^Refund asked by user-[0-9a-f]{10}@example\.test, see ticket$/)
    expect(r.text('GRACE.HOPPER+shop@Navy.example')).toBe(r.email('grace.hopper+shop@navy.example'))
  })

  it('cuts a phone number written with brackets to its last four digits, but not an address', () => {
    expect(r.text('call +1 (555) 123-4567 after 5')).toBe('call +••••4567 after 5')
    expect(r.text('connect ECONNREFUSED 192.168.100.200:8443')).toBe(
      'connect ECONNREFUSED 192.168.100.200:8443',
    )
  })
})
