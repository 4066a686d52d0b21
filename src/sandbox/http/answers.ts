import type {FastifyInstance, FastifyReply, FastifyRequest} from 'fastify'

/**
 * What is done with every answer, from the server's one `onSend` hook and its one `onResponse` hook
 * (each hook Fastify runs is a turn through its hook runner; five of them cost a transfer more
 * than its SQL's savings). Each part runs in the order it is given, and none may throw or wait.
 */
export interface AnswerHooks {
  /** As an answer leaves, once what it says is committed: `payload` is its body as sent. */
  sending?: (request: FastifyRequest, reply: FastifyReply, payload: unknown) => void
  /** Once it is sent. */
  sent?: (request: FastifyRequest, reply: FastifyReply) => void
}

type OnSendDone = (err: Error | null, payload?: unknown) => void

/**
 * The request id on every answer, no answer before the commit that holds what it says (and what
 * it read), then each of `hooks` in order. `committed` is the database's: undefined when nothing
 * waits to be committed, else settled by the commit. If that commit fails, the error handler
 * answers 500 instead (and none of it happened): `hooks` see that answer, not this one.
 */
export function addAnswerHooks(
  app: FastifyInstance,
  committed: () => Promise<void> | undefined,
  hooks: readonly AnswerHooks[],
): void {
  const sending = hooks.flatMap((h) => (h.sending === undefined ? [] : [h.sending]))
  const sent = hooks.flatMap((h) => (h.sent === undefined ? [] : [h.sent]))
  const waiting = new CommitWaiters(sending)
  app.addHook('onSend', (request, reply, payload, done) => {
    if (!reply.hasHeader('x-request-id')) reply.header('x-request-id', request.id)
    const commit = committed()
    if (commit === undefined) waiting.send(request, reply, payload, done)
    else waiting.after(commit, request, reply, payload, done)
  })
  app.addHook('onResponse', (request, reply, done) => {
    for (let i = 0; i < sent.length; i++) sent[i]!(request, reply)
    done()
  })
}

/**
 * The answers waiting for one group's commit, in the order they came: one promise callback a
 * group rather than a closure and a promise reaction an answer.
 */
class CommitWaiters {
  readonly #sending: readonly NonNullable<AnswerHooks['sending']>[]
  #commit: Promise<void> | undefined
  /** request, reply, payload, done, request, reply, ... */
  #held: unknown[] = []

  constructor(sending: readonly NonNullable<AnswerHooks['sending']>[]) {
    this.#sending = sending
  }

  after(
    commit: Promise<void>,
    request: FastifyRequest,
    reply: FastifyReply,
    payload: unknown,
    done: OnSendDone,
  ) {
    if (commit !== this.#commit) {
      this.#commit = commit
      const held: unknown[] = []
      this.#held = held
      commit.then(
        () => this.#release(held, null),
        (err: Error) => this.#release(held, err),
      )
    }
    this.#held.push(request, reply, payload, done)
  }

  send(request: FastifyRequest, reply: FastifyReply, payload: unknown, done: OnSendDone): void {
    const sending = this.#sending
    for (let i = 0; i < sending.length; i++) sending[i]!(request, reply, payload)
    done(null, payload)
  }

  #release(held: unknown[], err: Error | null): void {
    for (let i = 0; i < held.length; i += 4) {
      const done = held[i + 3] as OnSendDone
      try {
        if (err === null) this.send(held[i] as FastifyRequest, held[i + 1] as FastifyReply, held[i + 2], done)
        else done(err)
      } catch (thrown) {
        // As uncaught as it was from a promise callback of its own, without holding back the others.
        queueMicrotask(() => {
          throw thrown
        })
      }
    }
    held.length = 0
  }
}
