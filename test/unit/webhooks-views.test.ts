import {stripVTControlCharacters} from 'node:util'
import {describe, expect, it} from 'vitest'
import {listenLines} from '../../src/cli/views/webhooks-views.js'
import type {ListenEvent} from '../../src/core/webhooks/index.js'

const time = '2025-01-01T12:00:00.000Z'
const lines = (e: ListenEvent) => {
  const {stdout, stderr} = listenLines(e, false)
  return {
    stdout: stdout === undefined ? undefined : stripVTControlCharacters(stdout),
    stderr: stderr === undefined ? undefined : stripVTControlCharacters(stderr),
  }
}
const forward = {
  type: 'forward',
  time,
  eventId: 'evt_1',
  event: 'wallet.created',
  deliveryId: 'dlv_1',
  attempt: 1,
  url: 'http://localhost:3000/hooks',
  forwarded: true,
} as const

describe('the lines of webhooks listen', () => {
  it('names the HTTP status of a failed forward', () => {
    const {stdout} = lines({...forward, ok: false, status: 500, durationMs: 3, body: 'boom'})
    expect(stdout).toMatch(
      /<-- \[500\] POST http:\/\/localhost:3000\/hooks \[evt_1\] 3 ms HTTP 500 \(the sandbox will retry\)$/,
    )
  })

  it('names the error of a forward that got no answer', () => {
    const {stdout} = lines({
      ...forward,
      ok: false,
      durationMs: 2,
      error: 'connection refused (is your app running?)',
    })
    expect(stdout).toMatch(
      /\[ERR\] .* 2 ms connection refused \(is your app running\?\) \(the sandbox will retry\)$/,
    )
  })

  it('says it could not open the link when no link worked, and that it lost it when one did', () => {
    const base = {
      type: 'reconnecting',
      time,
      reason: 'could not reach http://127.0.0.1:9',
      attempt: 2,
      delayMs: 400,
    } as const
    expect(lines({...base, wasLinked: false}).stderr).toBe(
      'Could not open the link to the sandbox (could not reach http://127.0.0.1:9). Trying again in 0.4 s (attempt 2)…',
    )
    expect(lines({...base, wasLinked: true}).stderr).toMatch(
      /^Lost the link to the sandbox \(.*\)\. Reconnecting in 0\.4 s/,
    )
  })

  it('says Ready without a forward URL when there is none', () => {
    const ready = {
      type: 'ready',
      time,
      sessionId: 'lsn_1',
      secret: 'whsec_x',
      events: ['*'],
      forwardTo: null,
      pending: 0,
      resumed: false,
    } satisfies ListenEvent
    expect(lines(ready).stdout).toContain('printing events (add --forward-to URL')
  })
})
