import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {EVENT_NAMES} from '../../src/contract/events/envelope.js'
import {type Cli, cliFor} from '../helpers/cli.js'
import {type LocalSandbox, startLocalSandbox} from '../helpers/local-sandbox.js'
import {type ListenLine, type ListenProcess, startListen} from '../helpers/webhooks-listen.js'
import {type Receiver, startReceiver} from '../helpers/webhooks-receiver.js'
import {freePort, startTcpProxy, type TcpProxy} from '../helpers/webhooks-tcp-proxy.js'

/** Poll `check` until it holds. */
async function until(check: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 25))
  }
}

/** `webhooks listen` processes against a sandbox served in the test (docs/webhooks.md). */
describe('webhooks listen', () => {
  let sandbox: LocalSandbox
  let cli: Cli
  let receiver: Receiver
  let proxy: TcpProxy
  let listen: ListenProcess
  let secret = ''
  // This event's first two forwards get 500 from the receiver, the third 200.
  const FLAKY = 'roundupsvc.transfer.completed'
  let flakyAnswers = 0

  const trigger = async (event: string): Promise<string> => {
    const res = await fetch(`${sandbox.url}/_sandbox/trigger`, {
      method: 'POST',
      headers: {authorization: `Bearer ${sandbox.credentials.secretKey}`, 'content-type': 'application/json'},
      body: JSON.stringify({event}),
    })
    const body = (await res.json()) as {event: {id: string}}
    return body.event.id
  }
  /** Receipts the receiver accepted (verified with the printed secret, answered 200), by event id. */
  const accepted = (eventId: string) =>
    receiver.received.filter((r) => r.status === 200 && r.json?.id === eventId)
  const forwardedOk = (l: ListenLine) => l.type === 'forward' && l.ok
  const pendingDeliveries = async (): Promise<number> => {
    const res = await fetch(`${sandbox.url}/v1/events?delivery=pending`, {
      headers: {authorization: `Bearer ${sandbox.credentials.secretKey}`},
    })
    return ((await res.json()) as {data: {events: unknown[]}}).data.events.length
  }

  beforeAll(async () => {
    // The retries a tenth as long (50 ms, then 100 ms): the flaky event's third attempt comes at once.
    sandbox = await startLocalSandbox({webhookRetries: 'fast', webhookWaitScale: 0.1})
    cli = cliFor(sandbox, {timeoutMs: 30_000})
    receiver = await startReceiver({
      // The receiver checks every delivery with the secret listen printed, answering 401 on failure.
      secret: () => secret,
      respond: (r) => (r.json?.event === FLAKY && flakyAnswers++ < 2 ? 500 : 200),
    })
  })
  afterAll(async () => {
    listen?.kill('SIGKILL')
    await proxy?.close()
    await receiver?.close()
    await sandbox?.stop()
  })

  it('keeps reconnecting and prints Ready with the session secret only once the link works', async () => {
    const port = await freePort()
    listen = startListen(['--forward-to', receiver.url], {
      configDir: sandbox.configDir,
      env: {PAYCTL_BASE_URL: `http://127.0.0.1:${port}`},
    })
    const reconnecting = await listen.waitFor((l) => l.type === 'reconnecting')
    expect(reconnecting.reason).toContain('could not reach')
    expect(listen.lines.some((l) => l.type === 'ready')).toBe(false)
    proxy = await startTcpProxy(sandbox.url, port)
    const ready = await listen.waitFor((l) => l.type === 'ready', 20_000)
    expect(ready).toMatchObject({
      secret: expect.stringMatching(/^whsec_/),
      sessionId: expect.stringMatching(/^lsn_/),
      forwardTo: receiver.url,
      events: ['*'],
    })
    secret = ready.secret
  })

  it('forwards a triggered event of every name, verified by the receiver, retrying one that fails twice', async () => {
    const runs = await Promise.all(EVENT_NAMES.map((name) => cli('webhooks', 'trigger', name, '--json')))
    const ids = runs.map((r) => {
      expect(r.exitCode, r.stderr).toBe(0)
      // --json prints the event as it is delivered.
      return r.json<{id: string}>().id
    })
    await until(() => ids.every((id) => accepted(id).length > 0), 'every triggered event to be accepted')
    for (const [i, id] of ids.entries()) {
      expect(accepted(id), EVENT_NAMES[i]).toHaveLength(1)
      expect(accepted(id)[0]!.json.event).toBe(EVENT_NAMES[i])
    }
    expect(receiver.received.filter((r) => r.status === 401)).toHaveLength(0)
    const events = listen.lines.filter((l) => l.type === 'event')
    expect(events.every((l) => l.signature.valid)).toBe(true)

    const flakyId = ids[EVENT_NAMES.indexOf(FLAKY)]!
    await listen.waitForCount((l) => forwardedOk(l) && l.eventId === flakyId, 1)
    const forwards = listen.lines.filter((l) => l.type === 'forward' && l.eventId === flakyId)
    expect(forwards.map((l) => [l.attempt, l.status])).toEqual([
      [1, 500],
      [2, 500],
      [3, 200],
    ])
    // Settled once listen's acknowledgement, which follows the forward, reaches the sandbox.
    let delivery: Record<string, unknown> | undefined
    for (const deadline = Date.now() + 20_000; Date.now() < deadline; ) {
      ;[delivery] = (await cli('events', 'get', flakyId, '--json')).json<{
        deliveries: Record<string, unknown>[]
      }>().deliveries
      if (delivery?.status !== 'pending') break
      await new Promise((r) => setTimeout(r, 25))
    }
    expect(delivery).toMatchObject({status: 'succeeded', attempts: 3, listenSessionId: expect.any(String)})
    expect((delivery!.attemptLog as {via: string; status: number}[]).map((a) => [a.via, a.status])).toEqual([
      ['listen', 500],
      ['listen', 500],
      ['listen', 200],
    ])
  })

  it('loses nothing and forwards nothing twice when the link is cut mid-stream', async () => {
    const ids: string[] = []
    const chain = async (n: number) => {
      for (let i = 0; i < n; i++) ids.push(await trigger('roundup.processed'))
    }
    const firing = Promise.all([chain(15), chain(15)])
    await until(() => ids.filter((id) => accepted(id).length > 0).length >= 6, 'the stream to flow')
    const acceptedAtCut = ids.filter((id) => accepted(id).length > 0).length
    const linesAtCut = listen.lines.length
    expect(proxy.cut()).toBeGreaterThan(0)
    await firing
    expect(acceptedAtCut).toBeLessThan(ids.length)
    await until(() => ids.every((id) => accepted(id).length > 0), 'every event after the cut', 20_000)
    for (const id of ids) expect(accepted(id), id).toHaveLength(1)
    // It said it lost the link, and then that it was back (what was in hand may have been forwarded first).
    const since = () => listen.lines.slice(linesAtCut)
    await until(() => since().some((l) => l.type === 'reconnected'), 'the link to be back')
    const lost = since().findIndex((l) => l.type === 'reconnecting' && l.reason !== undefined)
    expect(lost).toBeGreaterThanOrEqual(0)
    expect(lost).toBeLessThan(since().findIndex((l) => l.type === 'reconnected'))
  })

  it('replays once each what was delivered while listen was killed, with the same secret', async () => {
    // Kill between deliveries: a process killed in the instant between the receiver's answer and
    // its journal write would forward that one delivery again (see docs/webhooks.md).
    for (let pending = 1; pending > 0; await new Promise((r) => setTimeout(r, 50))) {
      pending = await pendingDeliveries()
    }
    listen.kill('SIGKILL')
    await listen.exited
    const away: string[] = []
    for (let i = 0; i < 5; i++) away.push(await trigger('bnplsvc.payment.created'))
    listen = startListen(['--forward-to', receiver.url], {
      configDir: sandbox.configDir,
      env: {PAYCTL_BASE_URL: proxy.url},
    })
    const ready = await listen.waitFor((l) => l.type === 'ready')
    expect(ready).toMatchObject({secret, resumed: true})
    expect(ready.pending).toBeGreaterThanOrEqual(away.length)
    await until(() => away.every((id) => accepted(id).length > 0), 'the replay')
    const ok = receiver.received.filter((r) => r.status === 200).map((r) => r.json.id as string)
    expect(new Set(ok).size).toBe(ok.length)
  })

  it('shows the delivery log and resends an event through the session', async () => {
    const list = await cli('events', 'list', '--type', 'bnplsvc.payment.created', '--json')
    const [newest] = list.json<{events: {id: string; deliveries: {succeeded: number}}[]}>().events
    await until(() => accepted(newest!.id).length === 1, 'the newest event')
    const resent = await cli('events', 'resend', newest!.id, '--json')
    expect(resent.exitCode, resent.stderr).toBe(0)
    const [delivery] = resent.json<{deliveries: {id: string; listenSessionId: string}[]}>().deliveries
    expect(delivery!.listenSessionId).toMatch(/^lsn_/)
    await until(() => accepted(newest!.id).length === 2, 'the resent event')
    const deliveryIds = accepted(newest!.id).map((r) => r.headers['x-service-delivery-id'])
    expect(deliveryIds[1]).toBe(delivery!.id)
    expect(deliveryIds[0]).not.toBe(delivery!.id)
  })

  it('stops cleanly on Ctrl-C, ending its session: nothing is collected for it while it is stopped', async () => {
    listen.kill('SIGINT')
    expect(await listen.exited).toBe(0)
    expect(listen.stderr()).not.toMatch(/Error|UNEXPECTED/)
    const whileStopped = await trigger('wallet.created')
    const event = await fetch(`${sandbox.url}/v1/events/${whileStopped}`, {
      headers: {authorization: `Bearer ${sandbox.credentials.secretKey}`},
    })
    const {deliveries} = ((await event.json()) as {data: {deliveries: {listenSessionId: string | null}[]}})
      .data
    expect(deliveries.filter((d) => d.listenSessionId !== null)).toEqual([])

    // Started again, it has the same secret and starts afresh.
    listen = startListen(['--forward-to', receiver.url], {configDir: sandbox.configDir})
    const ready = await listen.waitFor((l) => l.type === 'ready')
    expect(ready).toMatchObject({secret, resumed: false, pending: 0})
  })

  it('stops with LISTEN_SESSION_ENDED when its session is ended under it', async () => {
    const [ready] = listen.lines.filter((l) => l.type === 'ready')
    const res = await fetch(`${sandbox.url}/v1/webhooks/listen-sessions/${ready!.sessionId}`, {
      method: 'DELETE',
      headers: {authorization: `Bearer ${sandbox.credentials.secretKey}`},
    })
    expect(res.status).toBe(200)
    expect(await listen.exited).toBe(1)
    expect(JSON.stringify(listen.lines) + listen.stderr()).toMatch(/LISTEN_SESSION_ENDED/)
  })
})
