import {describe, expect, it} from 'vitest'
import {isSecretHeader, redactArgv, redactText} from '../../src/core/index.js'

describe('redaction of every credential the sandbox accepts', () => {
  it('hides keys and secrets with - and _, of any length the sandbox allows', () => {
    const text =
      'test_my-secret-key-value live_a_b-c sk_test_my_api-secret whsec_Ab-_+/= eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln'
    const out = redactText(text)
    for (const secret of ['my-secret-key-value', 'a_b-c', 'my_api-secret', 'Ab-_', 'c2ln']) {
      expect(out).not.toContain(secret)
    }
    // Public identifiers stay readable.
    expect(redactText('pk_test_public-key')).toBe('pk_test_public-key')
  })

  it('hides the value of credential headers given to -H in every spelling', () => {
    const line = redactArgv([
      'POST',
      '/users',
      '-H',
      'Authorization: Bearer opaque1',
      '--header',
      'X-Api-Key: opaque2',
      '--header=Cookie: sid=opaque3',
      '-HProxy-Authorization: Basic opaque4',
      '-H',
      'Idempotency-Key: order-42',
    ])
    for (const secret of ['opaque1', 'opaque2', 'opaque3', 'opaque4']) expect(line).not.toContain(secret)
    expect(line).toContain('Authorization: [REDACTED]')
    expect(line).toContain('Idempotency-Key: order-42')
    expect(isSecretHeader('x-service-signature')).toBe(true)
    expect(isSecretHeader('Idempotency-Key')).toBe(false)
  })
})
