import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {type Cli, cliFor} from '../helpers/cli.js'
import {type LocalSandbox, startLocalSandbox} from '../helpers/local-sandbox.js'
import {type ListenLine, startListen} from '../helpers/webhooks-listen.js'
import {type Delivery, processedIds, startReceiver} from '../helpers/webhooks-receiver.js'

/**
 * A listen session's delivery faults, between the sandbox and a real `webhooks listen` process (its
 * flags, its forwards and its Ctrl-C). A registration's faults: test/commands/delivery-faults-registration.test.ts.
 */
describe('delivery faults of a webhooks listen process', () => {
  let sandbox: LocalSandbox
  let cli: Cli
  beforeAll(async () => {
    // The retries and the reorder hold a fiftieth as long (10 ms, 20 ms, 40 ms…): the faults are
    // the same, and a delivery its random draws tamper with several times over is not waited for.
    sandbox = await startLocalSandbox({webhookRetries: 'fast', webhookWaitScale: 0.02})
    cli = cliFor(sandbox, {timeoutMs: 30_000})
  })
  afterAll(() => sandbox.stop())

  /** The sandbox's API, as the partner's secret key reaches it. */
  async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await fetch(`${sandbox.url}${path}`, {
      method,
      headers: {authorization: `Bearer ${sandbox.credentials.secretKey}`, 'content-type': 'application/json'},
      ...(body === undefined ? {} : {body: JSON.stringify(body)}),
    })
    expect(res.status, path).toBeLessThan(300)
    return (await res.json()) as T
  }

  async function trigger(count: number): Promise<string[]> {
    const ids: string[] = []
    for (let i = 0; i < count; i++)
      ids.push(
        (await api<{event: {id: string}}>('POST', '/_sandbox/trigger', {event: 'wallet.created'})).event.id,
      )
    return ids
  }

  /** Every delivery settled (none pending), within a generous time. */
  async function settled(): Promise<void> {
    for (const deadline = Date.now() + 60_000; Date.now() < deadline; ) {
      const pending = await api<{data: {events: unknown[]}}>('GET', '/v1/events?delivery=pending&limit=1')
      if (pending.data.events.length === 0) return
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    throw new Error('deliveries still pending')
  }

  async function deliveriesOf(ids: string[]): Promise<Delivery[]> {
    const all: Delivery[] = []
    for (const id of ids)
      all.push(...(await api<{data: {deliveries: Delivery[]}}>('GET', `/v1/events/${id}`)).data.deliveries)
    return all
  }

  it('a listen session under every fault at once: tampered deliveries forwarded as they came, and marked', async () => {
    let secret = ''
    const receiver = await startReceiver({secret: () => secret})
    const listen = startListen(
      [
        ...[
          '--forward-to',
          receiver.url,
          '--events',
          'wallet.created',
          '--duplicate',
          '0.3',
          '--reorder',
          '3',
        ],
        ...['--delay', '200ms', '--fail-first', '1', '--tamper-signature', '0.3'],
      ],
      {configDir: sandbox.configDir},
    )
    try {
      const ready = await listen.waitFor((l) => l.type === 'ready', 20_000)
      secret = ready.secret
      const listed = (await cli('sandbox', 'faults', 'list', '--json')).json<{faults: unknown[]}>()
      expect(listed.faults).toEqual([
        expect.objectContaining({
          kind: 'delivery',
          listenSessionId: ready.sessionId,
          failFirst: 1,
          reorder: 3,
        }),
      ])
      const events = await trigger(10)
      await settled()

      expect([...processedIds(receiver.received)].sort()).toEqual([...events].sort())
      const tampered = listen.lines.filter(
        (l: ListenLine) => l.type === 'event' && l.injected?.includes('tampered signature'),
      )
      expect(tampered.length).toBe(receiver.received.filter((r) => r.status === 401).length)
      for (const line of tampered) {
        expect(line.signature.valid).toBe(false)
        // Forwarded as it came: the app's own check refused it (the line follows the acknowledgement).
        const forward = await listen.waitFor(
          (l) => l.type === 'forward' && l.deliveryId === line.deliveryId && l.attempt === line.attempt,
        )
        expect(forward.status).toBe(401)
      }
      const deliveries = await deliveriesOf(events)
      const attempts = deliveries.flatMap((d) => d.attemptLog.map((a) => a.injected ?? ''))
      expect(attempts.filter((n) => n === 'fail-first 1 of 1')).toHaveLength(events.length)
      expect(attempts.filter((n) => n.includes('tampered signature'))).toHaveLength(tampered.length)
    } finally {
      listen.kill('SIGINT')
      await listen.exited
      await receiver.close()
    }
    // Ctrl-C ended the session, and its faults with it.
    expect((await cli('sandbox', 'faults', 'list', '--json')).json()).toEqual({
      faults: [],
      hasMore: false,
      nextCursor: null,
    })
  })
})
