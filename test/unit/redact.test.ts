import {describe, expect, it} from 'vitest'
import {isSecretHeader, redactArgv, redactText, withFlagValue} from '../../src/core/index.js'

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

  it('hides a credential inside a longer word and written with percent-escapes, and leaves ordinary words', () => {
    const key = `test_${'0123456789abcdef'.repeat(3)}`
    const body = key.slice('test_'.length)
    const hidden: [string, string][] = [
      [`/v1/users/${key}`, '/v1/users/test_[REDACTED]'],
      [`/v1/wallets/wal_${key}`, '/v1/wallets/wal_test_[REDACTED]'],
      [`order_${key}`, 'order_test_[REDACTED]'],
      [`/v1/users/test%5F${body}/wallets`, '/v1/users/test_[REDACTED]/wallets'],
      [`/v1/users/test%5f${body}`, '/v1/users/test_[REDACTED]'],
      [`/v1/users/%74%65%73%74%5f${body}`, '/v1/users/test_[REDACTED]'],
      [`/v1/users/test%255F${body}`, '/v1/users/test_[REDACTED]'],
      [
        `/v1/users?email=a%40b.test&key=wal_test%5F${body}`,
        '/v1/users?email=a%40b.test&key=wal_test_[REDACTED]',
      ],
      [`x-note: ${key}`, 'x-note: test_[REDACTED]'],
      [`/v1/users/pk_test_${body}`, '/v1/users/pk_test_[REDACTED]'],
      [`/v1/users/sk_test_${body}`, '/v1/users/sk_test_[REDACTED]'],
      ['/v1/hooks/whk_whsec_AbC-_9', '/v1/hooks/whk_whsec_[REDACTED]'],
      ['/v1/x/abceyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln', '/v1/x/abceyJ[REDACTED]'],
    ]
    for (const [text, shown] of hidden) expect(redactText(text), text).toBe(shown)
    for (const ordinary of [
      '/v1/wallets/wal_0123456789abcdef01234567',
      'olive_oil',
      '100%25 %zz',
      'order_test_1',
    ])
      expect(redactText(ordinary)).toBe(ordinary)
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

  it('replaces a flag’s value in both spellings, and nothing after --', () => {
    expect(
      withFlagValue(['--user', 'a@b.c', '--user=a@b.c', '--', '--user', 'x'], '--user', 'usr_1'),
    ).toEqual(['--user', 'usr_1', '--user=usr_1', '--', '--user', 'x'])
    expect(withFlagValue(['--username', 'a', '--user'], '--user', 'usr_1')).toEqual([
      '--username',
      'a',
      '--user',
    ])
  })
})
