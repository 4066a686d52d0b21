import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {payctl, runCli} from '../helpers/cli.js'
import {type SandboxProcess, startSandboxProcess} from '../helpers/sandbox.js'
import {type ListenProcess, startListen} from '../helpers/webhooks-listen.js'
import {independentlyVerify, type Receiver, startReceiver} from '../helpers/webhooks-receiver.js'

/** Poll `check` until it holds. */
async function until(check: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 25))
  }
}

/** A receiver that takes requests and never answers: a target that hangs. */
async function startHanging(): Promise<{
  url: string
  requests: () => number
  /** When the first request came (Date.now()). */
  firstAt: () => number
  close: () => Promise<void>
}> {
  let requests = 0
  let firstAt = 0
  const server: Server = createServer(() => {
    if (requests++ === 0) firstAt = Date.now()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const {port} = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/hang`,
    requests: () => requests,
    firstAt: () => firstAt,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** `webhooks listen --route … --header …` between real sandbox and listen processes (docs/webhooks.md). */
describe('webhooks listen with routes', () => {
  let sandbox: SandboxProcess
  let rest: Receiver
  let bnpl: Receiver
  let alerts: Receiver
  let hanging: Awaited<ReturnType<typeof startHanging>>
  let listen: ListenProcess
  let secret = ''
  let args: string[] = []

  const trigger = async (event: string): Promise<string> => {
    const res = await fetch(`${sandbox.url}/_sandbox/trigger`, {
      method: 'POST',
      headers: {authorization: `Bearer ${sandbox.credentials.secretKey}`, 'content-type': 'application/json'},
      body: JSON.stringify({event}),
    })
    expect(res.status).toBe(201)
    return ((await res.json()) as {event: {id: string}}).event.id
  }
  const ids = (r: Receiver) => r.received.map((x) => x.json.id as string)
  const events = (r: Receiver) => r.received.map((x) => x.json.event as string)

  beforeAll(async () => {
    sandbox = await startSandboxProcess(['--webhook-retries', 'fast'])
    const verified = {secret: () => secret}
    ;[rest, bnpl, alerts] = await Promise.all([
      startReceiver(verified),
      startReceiver(verified),
      startReceiver(verified),
    ])
    hanging = await startHanging()
    args = [
      '--forward-to',
      rest.url,
      '--route',
      `bnplsvc.*=${bnpl.url}`,
      '--route',
      `transaction.failed=${alerts.url}`,
      '--route',
      `walletsvc.card.created=${hanging.url}`,
      // Never reached: the first route that matches wins.
      '--route',
      `bnplsvc.payment.created=${alerts.url}`,
      '--header',
      'X-Env: dev',
      '--header',
      'Authorization: Bearer local-app-token',
    ]
    listen = startListen(args, {configDir: sandbox.configDir})
    const ready = await listen.waitFor((l) => l.type === 'ready', 20_000)
    secret = ready.secret
    expect(ready.routes).toEqual([
      {pattern: 'bnplsvc.*', url: bnpl.url},
      {pattern: 'transaction.failed', url: alerts.url},
      {pattern: 'walletsvc.card.created', url: hanging.url},
      {pattern: 'bnplsvc.payment.created', url: alerts.url},
    ])
  })
  afterAll(async () => {
    listen?.kill('SIGKILL')
    await Promise.all([rest?.close(), bnpl?.close(), alerts?.close(), hanging?.close()])
    await sandbox?.stop()
  })

  it('sends each event to the first route that matches and the rest to --forward-to, exact and signed, with the headers', async () => {
    const created = await trigger('bnplsvc.payment.created')
    const failed = await trigger('transaction.failed')
    const completed = await trigger('bnplsvc.payment.completed')
    await until(() => ids(bnpl).includes(created) && ids(bnpl).includes(completed), 'the bnpl events')
    await until(() => ids(alerts).includes(failed), 'the failed transaction')
    expect(events(bnpl).every((e) => e.startsWith('bnplsvc.'))).toBe(true)
    expect(events(alerts)).toEqual(['transaction.failed'])
    // Everything else the triggers recorded (wallet.created, transaction.completed) went to --forward-to.
    await until(() => events(rest).filter((e) => e === 'wallet.created').length >= 3, 'the wallet events')
    expect(events(rest).some((e) => e.startsWith('bnplsvc.') || e === 'transaction.failed')).toBe(false)
    for (const r of [...rest.received, ...bnpl.received, ...alerts.received]) {
      // The receiver verified the exact bytes with the session's secret, and got the extra headers.
      expect(r.status).toBe(200)
      expect(independentlyVerify(r.body, r.headers['x-service-signature'] as string, secret)).toBe(true)
      expect(r.headers['x-env']).toBe('dev')
      expect(r.headers.authorization).toBe('Bearer local-app-token')
    }
    const forwards = listen.lines.filter((l) => l.type === 'forward' && l.eventId === failed)
    expect(forwards.map((l) => [l.url, l.status])).toEqual([[alerts.url, 200]])
    // The header's value is the local app's business: never printed.
    expect(JSON.stringify(listen.lines) + listen.stderr()).not.toContain('local-app-token')
  })

  it('keeps each target’s order, and a target that hangs delays only its own deliveries', {
    timeout: 60_000,
  }, async () => {
    const card = await trigger('walletsvc.card.created')
    await until(() => hanging.requests() === 1, 'the hanging target to be called')
    const sequence: string[] = []
    for (let i = 0; i < 5; i++) sequence.push(await trigger('bnplsvc.payment.created'))
    const failed = await trigger('transaction.failed')
    await until(() => sequence.every((id) => ids(bnpl).includes(id)), 'the bnpl sequence')
    await until(() => ids(alerts).includes(failed), 'the failed transaction')
    // The card's forward is still waiting for an answer while the others were delivered.
    expect(listen.lines.some((l) => l.type === 'forward' && l.eventId === card)).toBe(false)
    const order = ids(bnpl).filter((id) => sequence.includes(id))
    expect(order).toEqual(sequence)
    // Stalled for 5 s, the target's next delivery is not queued behind it: it fails at once, for the
    // sandbox to retry, rather than hold a place in the sandbox's window of unacknowledged pushes.
    // (Between the stall, 5 s, and the first forward's timeout, 10 s, after it was sent.)
    await new Promise((r) => setTimeout(r, hanging.firstAt() + 7_000 - Date.now()))
    const second = await trigger('walletsvc.card.created')
    const skipped = await listen.waitFor((l) => l.type === 'forward' && l.eventId === second)
    expect(skipped).toMatchObject({
      url: hanging.url,
      ok: false,
      error: expect.stringContaining('has not answered'),
    })
    expect(listen.lines.some((l) => l.type === 'forward' && l.eventId === card)).toBe(false)
    expect(hanging.requests()).toBe(1)
    // Once its 10 s are up, the hanging forward fails and the sandbox will retry it.
    const gaveUp = await listen.waitFor((l) => l.type === 'forward' && l.eventId === card, 20_000)
    expect(gaveUp).toMatchObject({url: hanging.url, ok: false})
  })

  it('routes the same way what it replays after a restart', async () => {
    listen.kill('SIGKILL')
    await listen.exited
    const away = {
      created: await trigger('bnplsvc.payment.created'),
      failed: await trigger('transaction.failed'),
    }
    listen = startListen(args, {configDir: sandbox.configDir})
    const ready = await listen.waitFor((l) => l.type === 'ready', 20_000)
    expect(ready).toMatchObject({secret, resumed: true})
    await until(() => ids(bnpl).includes(away.created) && ids(alerts).includes(away.failed), 'the replay')
    expect(ids(rest)).not.toContain(away.created)
    expect(ids(rest)).not.toContain(away.failed)
    const twice = [...ids(bnpl), ...ids(alerts)].filter((id, i, all) => all.indexOf(id) !== i)
    expect(twice).toEqual([])
  })

  it('resends an event --times 3: three deliveries in its log, each reaching the route’s target', async () => {
    const failed = await trigger('transaction.failed')
    await until(() => ids(alerts).includes(failed), 'the first delivery')
    const r = await runCli(['events', 'resend', failed, '--times', '3', '--json'], {
      configDir: sandbox.configDir,
    })
    expect(r.exitCode, r.stderr).toBe(0)
    const resent = r.json<{deliveries: {id: string; resendOf: string | null}[]}>().deliveries
    expect(resent).toHaveLength(3)
    await until(() => ids(alerts).filter((id) => id === failed).length === 4, 'the three resends')
    const shown = await runCli(['events', 'get', failed, '--json'], {configDir: sandbox.configDir})
    const log = shown.json<{deliveries: {id: string; status: string}[]}>().deliveries
    for (const d of resent) expect(log.find((x) => x.id === d.id)?.status).toBe('succeeded')
    const deliveryIds = alerts.received
      .filter((x) => x.json.id === failed)
      .map((x) => x.headers['x-service-delivery-id'])
    expect(new Set(deliveryIds).size).toBe(4)
  })

  it('refuses a route that matches no event, a bad header or --times out of range: exit 2 naming the flag', async () => {
    const refused = async (extra: string[], ...says: string[]) => {
      const r = await payctl(extra, {configDir: sandbox.configDir})
      expect(r.exitCode, r.stderr).toBe(2)
      for (const text of says) expect(r.stderr).toContain(text)
    }
    const listenWith = (...flags: string[]) => ['webhooks', 'listen', '--forward-to', rest.url, ...flags]
    await refused(listenWith('--route', `bnpl.*=${bnpl.url}`), '--route', 'matches no event')
    await refused(listenWith('--route', `transaction.fail=${bnpl.url}`), 'did you mean "transaction.failed"?')
    await refused(listenWith('--route', 'bnplsvc.*'), '--route', 'PATTERN=URL')
    await refused(listenWith('--route', 'bnplsvc.*=ftp://x'), '--route', 'http(s) URL')
    await refused(listenWith('--header', 'X-Service-Signature: forged'), '--header', "the delivery's own")
    await refused(listenWith('--header', 'no colon here'), '--header', 'Name: value')
    await refused(['events', 'resend', 'evt_0123', '--times', '11'], '--times')
  })
})
