import {mkdirSync, mkdtempSync, rmSync} from 'node:fs'
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {type WebSocket, WebSocketServer} from 'ws'
import {signatureHeader, unixSeconds} from '../../src/contract/webhook-signing/signature.js'
import type {PayctlClient} from '../../src/core/client.js'
import {PayctlError} from '../../src/core/errors.js'
import {type ListenEvent, Listener, ListenState} from '../../src/core/webhooks/index.js'

const SECRET = 'whsec_test_listener_secret_0123456789ab'

/**
 * A stand-in for the sandbox's end of the tunnel: answers openListenSession, accepts the WebSocket,
 * sends `ready` (or what `ready` returns), and records the frames the listener sends back.
 */
async function fakeSandbox(opts: {ready?: () => unknown; openFailures?: number} = {}) {
  let openFailures = opts.openFailures ?? 0
  const server: Server = createServer()
  const wss = new WebSocketServer({server})
  const received: Record<string, unknown>[] = []
  const sockets: WebSocket[] = []
  let onConnect: (() => void) | undefined
  wss.on('connection', (socket) => {
    sockets.push(socket)
    socket.on('message', (data) => received.push(JSON.parse(String(data)) as Record<string, unknown>))
    socket.send(
      JSON.stringify(
        opts.ready?.() ?? {type: 'ready', sessionId: 'lsn_fake', pending: 0, heartbeatSeconds: 5},
      ),
    )
    onConnect?.()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const client = {
    profile: {baseUrl},
    call: async (_op: string, {body}: {body: {events?: string[]}}) => {
      if (openFailures-- > 0) {
        throw new PayctlError({
          kind: 'network',
          code: 'NETWORK_ERROR',
          message: 'refused',
          details: {errno: 'ECONNREFUSED'},
        })
      }
      return {
        id: 'lsn_fake',
        secret: SECRET,
        events: body.events ?? ['*'],
        resumed: false,
        pending: 0,
        socketPath: '/v1/webhooks/listen-sessions/lsn_fake/socket',
        ticket: 'lst_fake',
        heartbeatSeconds: 5,
        replayWindowSeconds: 3600,
        createdAt: new Date().toISOString(),
      }
    },
  } as unknown as PayctlClient
  let n = 0
  return {
    client,
    received,
    connected: () =>
      new Promise<void>((resolve) => {
        if (sockets.length > 0) resolve()
        else onConnect = resolve
      }),
    /** Cut every link, as a dropped connection does. */
    cut: () => {
      for (const socket of sockets.splice(0)) socket.terminate()
    },
    /** Push a signed delivery of `event` over the newest link; answers its delivery id. */
    deliver(event: string): string {
      n++
      const deliveryId = `dlv_fake${n}`
      const body = JSON.stringify({id: `evt_fake${n}`, event, data: {}, timestamp: new Date().toISOString()})
      sockets.at(-1)!.send(
        JSON.stringify({
          type: 'delivery',
          deliveryId,
          eventId: `evt_fake${n}`,
          event,
          attempt: 1,
          createdAt: new Date().toISOString(),
          headers: {'x-service-signature': signatureHeader(body, [SECRET], unixSeconds())},
          body: Buffer.from(body).toString('base64'),
        }),
      )
      return deliveryId
    },
    close: async () => {
      for (const s of sockets) s.terminate()
      wss.close()
      await new Promise((r) => server.close(r))
    },
  }
}

async function until(check: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 10))
  }
}

describe('the listener', () => {
  const cleanups: (() => unknown)[] = []
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c()
  })
  const setup = async (
    opts: {
      events?: string[]
      ready?: () => unknown
      openFailures?: number
      onEvent?: (e: ListenEvent) => void | Promise<void>
    } = {},
  ) => {
    const sandbox = await fakeSandbox({ready: opts.ready, openFailures: opts.openFailures})
    cleanups.push(sandbox.close)
    const dir = mkdtempSync(join(tmpdir(), 'payctl-listen-'))
    cleanups.push(() => rmSync(dir, {recursive: true, force: true}))
    const controller = new AbortController()
    cleanups.push(() => controller.abort())
    const events: ListenEvent[] = []
    const listener = new Listener({
      client: sandbox.client,
      state: ListenState.open('test', dir),
      events: opts.events ?? ['*'],
      signal: controller.signal,
      onEvent: (e) => {
        events.push(e)
        return opts.onEvent?.(e)
      },
    })
    const run = listener.run()
    // Observed from the start, so a rejection is never reported as unhandled.
    run.catch(() => undefined)
    return {sandbox, events, run, controller, dir}
  }

  it('acknowledges without forwarding a delivery its --events do not select, and says so', async () => {
    const {sandbox, events, controller, run} = await setup({events: ['walletsvc.card.created']})
    await until(() => events.some((e) => e.type === 'ready'), 'ready')
    // Without --forward-to, the ready line says so with an explicit null.
    expect(JSON.stringify(events.find((e) => e.type === 'ready'))).toContain('"forwardTo":null')
    const unwanted = sandbox.deliver('wallet.created')
    const wanted = sandbox.deliver('walletsvc.card.created')
    await until(() => sandbox.received.filter((f) => f.type === 'ack').length === 2, 'two acks')
    expect(sandbox.received.find((f) => f.deliveryId === unwanted)).toEqual({
      type: 'ack',
      deliveryId: unwanted,
      forwarded: false,
    })
    expect(events.filter((e) => e.type === 'skipped')).toMatchObject([
      {deliveryId: unwanted, event: 'wallet.created', eventId: expect.stringMatching(/^evt_/)},
    ])
    // Only the selected one is treated as an event.
    expect(events.filter((e) => e.type === 'event').map((e) => 'deliveryId' in e && e.deliveryId)).toEqual([
      wanted,
    ])
    controller.abort()
    expect((await run).received).toBe(1)
  })

  it('stops with a clear error, not an unhandled rejection, when reporting an event throws', async () => {
    const {sandbox, events, run} = await setup({
      onEvent: (e) => {
        if (e.type === 'event') throw new Error('the terminal went away')
      },
    })
    await until(() => events.some((e) => e.type === 'ready'), 'ready')
    sandbox.deliver('wallet.created')
    const err = await run.then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(err).toBeInstanceOf(PayctlError)
    expect(err).toMatchObject({code: 'LISTEN_FAILED', message: 'listen stopped: the terminal went away'})
    // Nobody saw it: it is left to the sandbox, which sends it again to the next listener.
    expect(sandbox.received.filter((f) => f.type === 'ack')).toEqual([])
  })

  it('stops with LISTEN_JOURNAL_UNWRITABLE, without acknowledging, when the journal cannot be written', async () => {
    const {sandbox, events, run, dir} = await setup()
    await until(() => events.some((e) => e.type === 'ready'), 'ready')
    const journal = join(dir, 'listen-test.journal')
    rmSync(journal)
    mkdirSync(journal) // appending to a directory fails, whoever runs the test
    sandbox.deliver('wallet.created')
    await expect(run).rejects.toMatchObject({code: 'LISTEN_JOURNAL_UNWRITABLE', exitCode: 1})
    expect(sandbox.received.filter((f) => f.type === 'ack')).toEqual([])
  })

  it('stops with LISTEN_PROTOCOL when the ready frame is not one it understands', async () => {
    const {run} = await setup({ready: () => ({type: 'ready', sessionId: 42})})
    const err = (await run.then(
      () => undefined,
      (e: unknown) => e,
    )) as PayctlError
    expect(err).toBeInstanceOf(PayctlError)
    expect(err.code).toBe('LISTEN_PROTOCOL')
    expect(err.message).toContain('sessionId')
  })

  it('tells a link that could not be opened from a working link that was lost', async () => {
    const {sandbox, events, controller, run} = await setup({openFailures: 1})
    await until(() => events.some((e) => e.type === 'ready'), 'ready')
    sandbox.cut()
    await until(() => events.filter((e) => e.type === 'reconnecting').length === 2, 'the second reconnect')
    expect(
      events.filter((e) => e.type === 'reconnecting').map((e) => 'wasLinked' in e && e.wasLinked),
    ).toEqual([false, true])
    controller.abort()
    await run
  })
})
