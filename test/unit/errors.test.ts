import {describe, expect, it} from 'vitest'
import {normaliseErrorBody} from '../../src/contract/index.js'
import {redactText, redactValue} from '../../src/core/index.js'

describe('normaliseErrorBody', () => {
  it('reads the overview shape', () => {
    expect(
      normaliseErrorBody({
        success: false,
        error: {code: 'INSUFFICIENT_BALANCE', message: 'too low', details: {required: 5, available: 1}},
        meta: {requestId: 'req_1', timestamp: '2026-01-01T00:00:00Z'},
      }),
    ).toEqual({
      code: 'INSUFFICIENT_BALANCE',
      message: 'too low',
      details: {required: 5, available: 1},
      requestId: 'req_1',
    })
  })
  it('reads the Variant A auth shape', () => {
    expect(
      normaliseErrorBody({
        error: {code: 'TOKEN_EXPIRED', message: 'm', details: {expired_at: 'x'}},
        request_id: 'req_2',
      }),
    ).toEqual({
      code: 'TOKEN_EXPIRED',
      message: 'm',
      details: {expired_at: 'x'},
      requestId: 'req_2',
    })
  })
  it('reads the Variant B auth shape', () => {
    expect(
      normaliseErrorBody({error: {code: 'unauthorized', message: 'm', type: 'authentication_error'}}),
    ).toEqual({
      code: 'unauthorized',
      message: 'm',
      type: 'authentication_error',
    })
  })
  it('reads the resource shape', () => {
    expect(
      normaliseErrorBody({error: 'duplicate_wallet', message: 'm', code: 'WALLET_EXISTS', details: {a: 1}}),
    ).toEqual({
      code: 'WALLET_EXISTS',
      message: 'm',
      details: {a: 1},
      type: 'duplicate_wallet',
    })
  })
  it('still finds the code in a body missing meta, type or details', () => {
    expect(normaliseErrorBody({error: {code: 'TOKEN_EXPIRED', message: 'm'}})?.code).toBe('TOKEN_EXPIRED')
    expect(normaliseErrorBody({success: false, error: {code: 'X', message: 'm', details: null}})?.code).toBe(
      'X',
    )
  })
  it('gives up on anything else', () => {
    expect(normaliseErrorBody({oops: true})).toBeUndefined()
    expect(normaliseErrorBody('text')).toBeUndefined()
  })
})

describe('redaction', () => {
  it('hides JWTs, secret keys and webhook secrets in free text', () => {
    const text =
      'Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl key test_abcdefgh1234 whsec_abcdefgh1234 sk_test_abcdefgh12'
    const out = redactText(text)
    expect(out).not.toContain('c2lnbmF0dXJl')
    expect(out).not.toContain('abcdefgh1234')
    expect(out).not.toContain('sk_test_abcdefgh12')
    expect(out).toContain('test_[REDACTED]')
  })
  it('hides secret fields by name but keeps public identifiers', () => {
    expect(
      redactValue({api_key: 'pk_test_public', api_secret: 'hunter2', nested: {access_token: 'x'}}),
    ).toEqual({
      api_key: 'pk_test_public',
      api_secret: '[REDACTED]',
      nested: {access_token: '[REDACTED]'},
    })
  })
})
