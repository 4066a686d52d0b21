import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {cliFor} from '../helpers/cli.js'
import {type LocalSandbox, startLocalSandbox} from '../helpers/local-sandbox.js'
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
  close: () => Promise<void>
}> {
  let requests = 0
  const server: Server = createServer(() => {
    requests++
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const {port} = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/hang`,
    requests: () => requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/**
 * How long an unanswered forward may hold its target up, and how long it may take: a fifth of a
 * second to stall (5 s by default), so that no test waits for it, and a generous 30 s to time out
 * (10 s by default), so that nothing the tests do meanwhile can outlast it on a busy machine. The
 * last test shortens the timeout in its turn (docs/webhooks.md#routed-forwarding).
 */
const WAITS = {PAYCTL_LISTEN_STALL_AFTER: '200ms', PAYCTL_LISTEN_FORWARD_TIMEOUT: '30s'}

/** `webhooks listen --route … --header …` processes against a sandbox (docs/webhooks.md). */
describe('webhooks listen with routes', () => {
  let sandbox: LocalSandbox
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
    sandbox = await startLocalSandbox({webhookRetries: 'fast'})
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
    listen = startListen(args, {configDir: sandbox.configDir, env: WAITS})
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
    // Its line follows the forward's acknowledgement.
    await listen.waitFor((l) => l.type === 'forward' && l.eventId === failed)
    const forwards = listen.lines.filter((l) => l.type === 'forward' && l.eventId === failed)
    expect(forwards.map((l) => [l.url, l.status])).toEqual([[alerts.url, 200]])
    // The header's value is the local app's business: never printed.
    expect(JSON.stringify(listen.lines) + listen.stderr()).not.toContain('local-app-token')
  })

  it('keeps each target’s order, and a target that hangs delays only its own deliveries', async () => {
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
    // Unanswered past the stall, the target's next delivery is not queued behind it: it fails, for
    // the sandbox to retry, rather than hold a place in the sandbox's window of unacknowledged
    // pushes; and once the target is stalled, the one after fails as soon as it comes.
    const stalled = {url: hanging.url, ok: false, error: expect.stringContaining('has not answered')}
    for (const what of ['the next card', 'the one after']) {
      const next = await trigger('walletsvc.card.created')
      const skipped = await listen.waitFor((l) => l.type === 'forward' && l.eventId === next)
      expect(skipped, what).toMatchObject(stalled)
    }
    // The hanging forward itself still waits for its answer (or its timeout, 30 s here: the last
    // test gives another listener half a second).
    expect(listen.lines.some((l) => l.type === 'forward' && l.eventId === card)).toBe(false)
    expect(hanging.requests()).toBe(1)
  })

  it('routes the same way what it replays after a restart', async () => {
    listen.kill('SIGKILL')
    await listen.exited
    const away = {
      created: await trigger('bnplsvc.payment.created'),
      failed: await trigger('transaction.failed'),
    }
    listen = startListen(args, {configDir: sandbox.configDir, env: WAITS})
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
    const cli = cliFor(sandbox)
    const r = await cli('events', 'resend', failed, '--times', '3', '--json')
    expect(r.exitCode, r.stderr).toBe(0)
    const resent = r.json<{deliveries: {id: string; resendOf: string | null}[]}>().deliveries
    expect(resent).toHaveLength(3)
    await until(() => ids(alerts).filter((id) => id === failed).length === 4, 'the three resends')
    // Settled once listen's acknowledgements, which follow the forwards, reach the sandbox.
    let log: {id: string; status: string}[] = []
    const settled = () => resent.every((d) => log.some((x) => x.id === d.id && x.status !== 'pending'))
    for (const deadline = Date.now() + 20_000; !settled() && Date.now() < deadline; ) {
      log = (await cli('events', 'get', failed, '--json')).json<{deliveries: typeof log}>().deliveries
      if (!settled()) await new Promise((r) => setTimeout(r, 25))
    }
    for (const d of resent) expect(log.find((x) => x.id === d.id)?.status).toBe('succeeded')
    const deliveryIds = alerts.received
      .filter((x) => x.json.id === failed)
      .map((x) => x.headers['x-service-delivery-id'])
    expect(new Set(deliveryIds).size).toBe(4)
  })

  it('refuses a route that matches no event, a bad header or --times out of range: exit 2 naming the flag', async () => {
    const refused = async (extra: string[], ...says: string[]) => {
      const r = await cliFor(sandbox)(...extra)
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
    // So is a wait it cannot read in the variables that shorten its own.
    for (const [name, value] of [
      ['PAYCTL_LISTEN_STALL_AFTER', '5 minutes'],
      ['PAYCTL_LISTEN_FORWARD_TIMEOUT', '31s'],
    ] as const) {
      const r = await cliFor(sandbox, {env: {[name]: value}})(...listenWith())
      expect(r.exitCode, r.stderr).toBe(2)
      expect(r.stderr).toContain(`${name} "${value}"`)
    }
  })

  it('gives up a forward its target has not answered within the forward timeout, for the sandbox to retry', async () => {
    listen.kill('SIGKILL')
    await listen.exited
    // The next listener's forwards time out sooner than they stall (the stall as by default, 5 s):
    // each forward to the hanging target, those replayed to it and then the new card's, gives up
    // after half a second.
    listen = startListen(args, {configDir: sandbox.configDir, env: {PAYCTL_LISTEN_FORWARD_TIMEOUT: '500ms'}})
    await listen.waitFor((l) => l.type === 'ready', 20_000)
    const card = await trigger('walletsvc.card.created')
    const gaveUp = await listen.waitFor((l) => l.type === 'forward' && l.eventId === card, 20_000)
    expect(gaveUp).toMatchObject({url: hanging.url, ok: false, error: 'no answer within 0.5 s'})
    // The sandbox has it as a failed attempt, and the delivery pending, to be retried on its schedule.
    type Delivery = {status: string; attemptLog: {error: string | null}[]}
    let delivery: Delivery | undefined
    for (const deadline = Date.now() + 20_000; Date.now() < deadline; ) {
      const res = await fetch(`${sandbox.url}/v1/events/${card}`, {
        headers: {authorization: `Bearer ${sandbox.credentials.secretKey}`},
      })
      delivery = ((await res.json()) as {data: {deliveries: Delivery[]}}).data.deliveries[0]
      if (delivery?.attemptLog.some((a) => a.error === 'no answer within 0.5 s')) break
      await new Promise((r) => setTimeout(r, 25))
    }
    expect(delivery?.attemptLog.map((a) => a.error)).toContain('no answer within 0.5 s')
    expect(delivery?.status).toBe('pending')
  })
})
