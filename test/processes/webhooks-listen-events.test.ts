import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {cliFor} from '../helpers/cli.js'
import {type LocalSandbox, startLocalSandbox} from '../helpers/local-sandbox.js'
import {type ListenProcess, startListen} from '../helpers/webhooks-listen.js'
import {type Receiver, startReceiver} from '../helpers/webhooks-receiver.js'

/** `webhooks listen --events` processes against a sandbox served in the test. */
describe('webhooks listen --events', () => {
  let sandbox: LocalSandbox
  let receiver: Receiver
  let listen: ListenProcess | undefined

  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${sandbox.url}${path}`, {
      method,
      headers: {authorization: `Bearer ${sandbox.credentials.secretKey}`, 'content-type': 'application/json'},
      ...(body === undefined ? {} : {body: JSON.stringify(body)}),
    })
    return (await res.json()) as Record<string, unknown>
  }
  /** Trigger a card (which records a wallet.created first): the ids of both events. */
  const triggerCard = async () => {
    const card = (await api('POST', '/_sandbox/trigger', {event: 'walletsvc.card.created'})) as {
      event: {id: string}
    }
    const list = (await api('GET', '/v1/events?type=wallet.created&limit=1')) as {
      data: {events: {id: string}[]}
    }
    return {card: card.event.id, wallet: list.data.events[0]!.id}
  }
  const sessionDeliveries = async (eventId: string) => {
    const event = (await api('GET', `/v1/events/${eventId}`)) as {
      data: {deliveries: {listenSessionId: string | null; status: string; lastError: string | null}[]}
    }
    return event.data.deliveries.filter((d) => d.listenSessionId !== null)
  }
  const start = (args: string[]) => {
    listen = startListen(['--forward-to', receiver.url, ...args], {configDir: sandbox.configDir})
    return listen
  }

  beforeAll(async () => {
    sandbox = await startLocalSandbox({webhookRetries: 'fast'})
    receiver = await startReceiver()
  })
  afterAll(async () => {
    listen?.kill('SIGKILL')
    await receiver?.close()
    await sandbox?.stop()
  })

  it('replays only the backlog the new --events select, and gives the rest up', async () => {
    const all = start([])
    await all.waitFor((l) => l.type === 'ready')
    // Killed, not stopped: a stopped listener ends its session, a lost one comes back to its backlog.
    all.kill('SIGKILL')
    await all.exited
    const away = await triggerCard()

    const cards = start(['--events', 'walletsvc.card.created'])
    const ready = await cards.waitFor((l) => l.type === 'ready')
    expect(ready).toMatchObject({events: ['walletsvc.card.created'], resumed: true, pending: 1})
    await cards.waitFor((l) => l.type === 'forward' && l.ok && l.eventId === away.card)
    const [dropped] = await sessionDeliveries(away.wallet)
    expect(dropped).toMatchObject({status: 'failed'})
    expect(dropped!.lastError).toContain('events changed to walletsvc.card.created')
    expect(receiver.received.map((r) => r.json.event)).toEqual(['walletsvc.card.created'])
  })

  it('--print-secret without --events leaves the running listener’s events as they are', async () => {
    const printed = await cliFor(sandbox)('webhooks', 'listen', '--print-secret')
    expect(printed.exitCode, printed.stderr).toBe(0)
    const next = await triggerCard()
    await listen!.waitFor((l) => l.type === 'forward' && l.ok && l.eventId === next.card)
    // The session never selected the wallet event: no delivery of it was made to the session at all.
    expect(await sessionDeliveries(next.wallet)).toEqual([])
    expect(listen!.lines.filter((l) => l.type === 'skipped')).toEqual([])
    expect(receiver.received.map((r) => r.json.event)).toEqual([
      'walletsvc.card.created',
      'walletsvc.card.created',
    ])
  })

  it('--json prints an error on one line too: a listener taken over exits with LISTEN_REPLACED', async () => {
    const first = listen!
    let raw = ''
    first.child.stdout!.on('data', (c: Buffer) => {
      raw += c.toString()
    })
    const second = start(['--events', 'walletsvc.card.created'])
    await second.waitFor((l) => l.type === 'ready')
    expect(await first.exited).toBe(1)
    const lines = raw.trim().split('\n')
    expect(lines).toHaveLength(1)
    expect(JSON.parse(lines[0]!)).toMatchObject({error: {code: 'LISTEN_REPLACED', exitCode: 1}})
    expect(first.lines.at(-1)).toMatchObject({error: {code: 'LISTEN_REPLACED'}})
  })

  it('stops, acknowledging nothing more, when whoever reads its stdout goes away', async () => {
    listen!.kill('SIGINT')
    expect(await listen!.exited).toBe(0)
    const piped = start(['--events', 'walletsvc.card.created'])
    await piped.waitFor((l) => l.type === 'ready')
    // As `listen --json | head -n 1` does once it has its line.
    piped.child.stdout!.destroy()
    const unread = await triggerCard()
    const exited = await Promise.race([
      piped.exited,
      new Promise((r) => setTimeout(() => r('still running'), 10_000)),
    ])
    expect(exited, piped.stderr()).toBe(0)
    expect(piped.stderr()).not.toMatch(/Error|EPIPE|UNEXPECTED/)
    // Never acknowledged: still waiting for the session, and the next listener gets it.
    expect((await sessionDeliveries(unread.card))[0]).toMatchObject({status: 'pending'})
    const next = start(['--events', 'walletsvc.card.created'])
    await next.waitFor((l) => l.type === 'forward' && l.ok && l.eventId === unread.card)
    expect(receiver.received.filter((r) => r.json.id === unread.card)).toHaveLength(1)
  })
})
