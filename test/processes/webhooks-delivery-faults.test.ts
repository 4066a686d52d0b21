import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {payctl} from '../helpers/cli.js'
import {type SandboxProcess, startSandboxProcess} from '../helpers/sandbox.js'
import {type ListenLine, startListen} from '../helpers/webhooks-listen.js'
import {
  independentlyVerify,
  type Received,
  type Receiver,
  startReceiver,
} from '../helpers/webhooks-receiver.js'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

interface Delivery {
  injected: string | null
  status: string
  attemptLog: {injected: string | null}[]
}

/**
 * What a receiver's author writes: verify the signature (401 when it fails, startReceiver's
 * `secret`), then process each event once, by its id, however many times it arrives (below).
 */
const dedupingReceiver = (secret: () => string): Promise<Receiver> => startReceiver({secret})

/** The events processed: each verified delivery's event id, counted once. */
function processedIds(received: Received[]): Set<string> {
  return new Set(received.filter((r) => r.status === 200).map((r) => r.json.id as string))
}

describe('delivery faults against real sandbox and listen processes', () => {
  let sandbox: SandboxProcess
  const run = (args: string[]) => payctl(args, {configDir: sandbox.configDir, timeoutMs: 30_000})
  beforeAll(async () => {
    sandbox = await startSandboxProcess(['--webhook-retries', 'fast'])
  })
  afterAll(() => sandbox.stop())

  async function trigger(count: number): Promise<string[]> {
    const ids: string[] = []
    for (let i = 0; i < count; i++) {
      const r = await run(['webhooks', 'trigger', 'wallet.created', '--json'])
      expect(r.exitCode, r.stderr).toBe(0)
      ids.push(r.json<{id: string}>().id)
    }
    return ids
  }

  /** Every delivery settled (none pending), within a generous time. */
  async function settled(): Promise<void> {
    for (let i = 0; i < 600; i++) {
      const r = await run(['events', 'list', '--delivery', 'pending', '--limit', '1', '--json'])
      if (r.json<{events: unknown[]}>().events.length === 0) return
      await sleep(100)
    }
    throw new Error('deliveries still pending')
  }

  async function deliveriesOf(ids: string[]): Promise<Delivery[]> {
    const all: Delivery[] = []
    for (const id of ids) {
      const event = (await run(['events', 'get', id, '--json'])).json<{deliveries: Delivery[]}>()
      all.push(...event.deliveries)
    }
    return all
  }

  it('a registration under every fault at once: each event processed once, every tampered one refused', async () => {
    let secret = ''
    let webhook = ''
    const receiver = await dedupingReceiver(() => secret)
    try {
      const hook = await run([
        'webhooks',
        'register',
        '--url',
        receiver.url,
        '--events',
        'wallet.created',
        '--json',
      ])
      secret = hook.json<{secret: string}>().secret
      webhook = hook.json<{id: string}>().id
      const add = await run([
        ...['webhooks', 'faults', 'add', webhook, '--duplicate', '0.3', '--reorder', '4', '--delay', '200ms'],
        ...['--fail-first', '1', '--tamper-signature', '0.25', '--seed', '5', '--json'],
      ])
      expect(add.exitCode, add.stderr).toBe(0)
      const events = await trigger(12)
      await settled()

      const refused = receiver.received.filter((r) => r.status === 401)
      expect([...processedIds(receiver.received)].sort()).toEqual([...events].sort())
      expect(receiver.received.filter((r) => r.status === 200).length).toBeGreaterThan(events.length)
      for (const r of refused) {
        expect(independentlyVerify(r.body, r.headers['x-service-signature'] as string, secret)).toBe(false)
      }
      const deliveries = await deliveriesOf(events)
      expect(deliveries.every((d) => d.status === 'succeeded')).toBe(true)
      const attempts = deliveries.flatMap((d) => d.attemptLog.map((a) => a.injected ?? ''))
      expect(attempts.filter((n) => n === 'fail-first 1 of 1')).toHaveLength(events.length)
      expect(attempts.filter((n) => n.includes('tampered signature'))).toHaveLength(refused.length)
      expect(attempts.some((n) => n.includes('reordered'))).toBe(true)
      expect(deliveries.filter((d) => d.injected?.startsWith('duplicate of dlv_')).length).toBeGreaterThan(0)
      // A person reading the log sees it too.
      const human = await run(['events', 'get', events[0]!])
      expect(human.stdout).toContain('[injected: fail-first 1 of 1]')
      expect(human.stdout).toContain('(injected: delayed 200 ms')
    } finally {
      // Its registration goes with it (and its fault): the next test's events are not for it.
      await run(['webhooks', 'delete', webhook, '--yes'])
      expect((await run(['sandbox', 'faults', 'list', '--json'])).json()).toEqual({
        faults: [],
        hasMore: false,
        nextCursor: null,
      })
      await receiver.close()
    }
  }, 120_000)

  it('a listen session under every fault at once: tampered deliveries forwarded as they came, and marked', async () => {
    let secret = ''
    const receiver = await dedupingReceiver(() => secret)
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
      const listed = (await run(['sandbox', 'faults', 'list', '--json'])).json<{faults: unknown[]}>()
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
        // Forwarded as it came: the app's own check refused it.
        const forward = listen.lines.find(
          (l) => l.type === 'forward' && l.deliveryId === line.deliveryId && l.attempt === line.attempt,
        )
        expect(forward?.status).toBe(401)
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
    expect((await run(['sandbox', 'faults', 'list', '--json'])).json()).toEqual({
      faults: [],
      hasMore: false,
      nextCursor: null,
    })
  }, 120_000)
})
