import {describe, expect, it} from 'vitest'
import {describeRequestFailure, readLimited} from '../../src/contract/webhook-signing/http.js'

describe('what deliveries and forwards share', () => {
  it('reads at most the limit of a body, and stops reading there', async () => {
    let pulled = 0
    async function* chatty() {
      for (;;) {
        pulled++
        yield Buffer.alloc(1000, 'a')
      }
    }
    const text = await readLimited(chatty(), 2048)
    expect(text).toHaveLength(2048)
    expect(pulled).toBe(3)
    async function* short() {
      yield Buffer.from('ok')
    }
    expect(await readLimited(short(), 2048)).toBe('ok')
  })

  it('says why a request got no answer, looking through causes', () => {
    const opts = {timedOut: false, timeoutMs: 10_000}
    const refused = new TypeError('fetch failed', {
      cause: Object.assign(new Error('x'), {code: 'ECONNREFUSED'}),
    })
    expect(describeRequestFailure(refused, opts)).toBe('connection refused')
    expect(
      describeRequestFailure(refused, {...opts, refused: 'connection refused (is your app running?)'}),
    ).toBe('connection refused (is your app running?)')
    expect(describeRequestFailure(Object.assign(new Error('x'), {code: 'UND_ERR_SOCKET'}), opts)).toBe(
      'connection reset before an answer',
    )
    expect(describeRequestFailure(new Error('aborted'), {...opts, timedOut: true})).toBe(
      'no answer within 10 s',
    )
    expect(describeRequestFailure(new Error('y'.repeat(900)), opts)).toHaveLength(500)
  })
})
