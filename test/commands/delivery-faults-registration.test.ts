import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {type Cli, cliFor} from '../helpers/cli.js'
import {type LocalSandbox, startLocalSandbox} from '../helpers/local-sandbox.js'
import {
  type Delivery,
  independentlyVerify,
  processedIds,
  startReceiver,
} from '../helpers/webhooks-receiver.js'

/** `webhooks faults add` on a registration, through the commands a partner types. */
describe('delivery faults of a registration, through the CLI', () => {
  let sandbox: LocalSandbox
  let cli: Cli
  beforeAll(async () => {
    // The retries and the reorder hold a tenth as long: the faults are the same, the waits shorter.
    sandbox = await startLocalSandbox({webhookRetries: 'fast', webhookWaitScale: 0.1})
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

  /** Every delivery settled (none pending), within a generous time. */
  async function settled(): Promise<void> {
    for (const deadline = Date.now() + 60_000; Date.now() < deadline; ) {
      const pending = await api<{data: {events: unknown[]}}>('GET', '/v1/events?delivery=pending&limit=1')
      if (pending.data.events.length === 0) return
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    throw new Error('deliveries still pending')
  }

  it('under every fault at once: each event processed once, every tampered one refused, the log says so', async () => {
    let secret = ''
    const receiver = await startReceiver({secret: () => secret})
    let webhook = ''
    try {
      const hook = await cli(
        'webhooks',
        'register',
        '--url',
        receiver.url,
        '--events',
        'wallet.created',
        '--json',
      )
      secret = hook.json<{secret: string}>().secret
      webhook = hook.json<{id: string}>().id
      const add = await cli(
        ...['webhooks', 'faults', 'add', webhook, '--duplicate', '0.3', '--reorder', '4', '--delay', '200ms'],
        ...['--fail-first', '1', '--tamper-signature', '0.25', '--seed', '5', '--json'],
      )
      expect(add.exitCode, add.stderr).toBe(0)
      // The events, and the log read back, through the API (the CLI's part: the fault's flags and
      // the log as `events get` shows it, below).
      const events: string[] = []
      for (let i = 0; i < 12; i++)
        events.push(
          (await api<{event: {id: string}}>('POST', '/_sandbox/trigger', {event: 'wallet.created'})).event.id,
        )
      await settled()

      const refused = receiver.received.filter((r) => r.status === 401)
      expect([...processedIds(receiver.received)].sort()).toEqual([...events].sort())
      expect(receiver.received.filter((r) => r.status === 200).length).toBeGreaterThan(events.length)
      for (const r of refused) {
        expect(independentlyVerify(r.body, r.headers['x-service-signature'] as string, secret)).toBe(false)
      }
      const logOf = async (id: string) =>
        (await api<{data: {deliveries: Delivery[]}}>('GET', `/v1/events/${id}`)).data.deliveries
      const deliveries: Delivery[] = []
      for (const id of events) deliveries.push(...(await logOf(id)))
      expect(deliveries.every((d) => d.status === 'succeeded')).toBe(true)
      const attempts = deliveries.flatMap((d) => d.attemptLog.map((a) => a.injected ?? ''))
      expect(attempts.filter((n) => n === 'fail-first 1 of 1')).toHaveLength(events.length)
      expect(attempts.filter((n) => n.includes('tampered signature'))).toHaveLength(refused.length)
      expect(attempts.some((n) => n.includes('reordered'))).toBe(true)
      expect(deliveries.filter((d) => d.injected?.startsWith('duplicate of dlv_')).length).toBeGreaterThan(0)
      // `events get` shows the same log, and a person reading it sees what was injected.
      const shown = await cli('events', 'get', events[0]!, '--json')
      expect(shown.json<{deliveries: Delivery[]}>().deliveries).toEqual(await logOf(events[0]!))
      const human = await cli('events', 'get', events[0]!)
      expect(human.stdout).toContain('[injected: fail-first 1 of 1]')
      expect(human.stdout).toContain('(injected: delayed 200 ms')
    } finally {
      // Its registration goes with it, and its fault.
      await cli('webhooks', 'delete', webhook, '--yes')
      expect((await cli('sandbox', 'faults', 'list', '--json')).json()).toEqual({
        faults: [],
        hasMore: false,
        nextCursor: null,
      })
      await receiver.close()
    }
  })
})
