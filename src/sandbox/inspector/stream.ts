import type {ServerResponse} from 'node:http'
import type {ChangeNotice} from '../../contract/inspector.js'

/** One open page's live stream (server-sent events). */
interface Stream {
  partnerId: string
  sessionKey: string
  res: ServerResponse
}

/** How long changes are gathered before a page hears of them: a burst is one notice. */
const GATHER_MS = 100
/** A comment line this often keeps proxies and the browser from closing a quiet stream. */
const HEARTBEAT_MS = 25_000
/** Ids a notice names at most; a page reloads what it shows whatever they are. */
const MAX_ABOUT = 50
/** Streams one partner may hold open (a tab each). */
export const MAX_STREAMS_PER_PARTNER = 64

/**
 * The inspector's live updates: each open page holds a server-sent event stream, and hears
 * `change` when its partner's data changed (an event recorded, a change answered), gathered over
 * 100 ms. Partner by partner: a page never hears of another partner's changes.
 */
export class LiveStreams {
  readonly #byPartner = new Map<string, Set<Stream>>()
  readonly #pending = new Map<string, Set<string>>()
  #heartbeat: NodeJS.Timeout | undefined

  /** Whether the partner holds as many streams as it may. */
  full(partnerId: string): boolean {
    return (this.#byPartner.get(partnerId)?.size ?? 0) >= MAX_STREAMS_PER_PARTNER
  }

  /** Hold `res` (its head written) open as a stream of the session's partner. */
  open(partnerId: string, sessionKey: string, res: ServerResponse): void {
    const streams = this.#byPartner.get(partnerId) ?? new Set<Stream>()
    const stream = {partnerId, sessionKey, res}
    streams.add(stream)
    this.#byPartner.set(partnerId, streams)
    res.on('close', () => this.#drop(stream))
    res.write('retry: 2000\n: connected\n\n')
    this.#heartbeat ??= setInterval(() => this.#beat(), HEARTBEAT_MS).unref()
  }

  /** Whether the partner has a page open: what a notice would name need not be found otherwise. */
  watched(partnerId: string): boolean {
    return this.#byPartner.has(partnerId)
  }

  /** Tell the partner's pages that what `about` names changed, within GATHER_MS. */
  notify(partnerId: string, about: readonly string[]): void {
    if (!this.#byPartner.has(partnerId)) return
    let pending = this.#pending.get(partnerId)
    if (pending === undefined) {
      pending = new Set()
      this.#pending.set(partnerId, pending)
      setTimeout(() => this.#flush(partnerId), GATHER_MS).unref()
    }
    for (const id of about) if (pending.size < MAX_ABOUT) pending.add(id)
  }

  /** Close the streams of a session that ended. */
  endSession(sessionKey: string): void {
    for (const streams of this.#byPartner.values())
      for (const s of streams) if (s.sessionKey === sessionKey) s.res.end()
  }

  /** Close every stream: the sandbox is stopping. */
  closeAll(): void {
    for (const streams of this.#byPartner.values()) for (const s of streams) s.res.end()
    this.#byPartner.clear()
    clearInterval(this.#heartbeat)
    this.#heartbeat = undefined
  }

  #flush(partnerId: string): void {
    const about = [...(this.#pending.get(partnerId) ?? [])]
    this.#pending.delete(partnerId)
    const notice: ChangeNotice = {about}
    const frame = `event: change\ndata: ${JSON.stringify(notice)}\n\n`
    for (const s of this.#byPartner.get(partnerId) ?? []) s.res.write(frame)
  }

  #beat(): void {
    for (const streams of this.#byPartner.values()) for (const s of streams) s.res.write(': beat\n\n')
  }

  #drop(stream: Stream): void {
    const streams = this.#byPartner.get(stream.partnerId)
    streams?.delete(stream)
    if (streams?.size === 0) this.#byPartner.delete(stream.partnerId)
  }
}
