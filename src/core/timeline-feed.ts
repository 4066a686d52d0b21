/**
 * A list the service pages newest first, read ahead one page at a time: the timeline looks at the
 * head of each of its sources and takes the newest, so it needs the next item of every source
 * before it can print a line, and never more than that (it streams).
 */

/** One page of a source: its items, newest first, and the cursor of the next page, if any. */
export interface FeedPage<T> {
  items: T[]
  next: string | undefined
}

export class Feed<T> {
  readonly #fetch: (cursor: string | undefined) => Promise<FeedPage<T>>
  readonly #timeOf: (item: T) => number
  readonly #onItem: ((item: T) => void) | undefined
  #buffer: T[] = []
  #pending: Promise<FeedPage<T>> | undefined
  #done = false

  constructor(
    fetch: (cursor: string | undefined) => Promise<FeedPage<T>>,
    timeOf: (item: T) => number,
    onItem?: (item: T) => void,
  ) {
    this.#fetch = fetch
    this.#timeOf = timeOf
    this.#onItem = onItem
    this.#pending = quiet(fetch(undefined))
  }

  /** The first page, as the service answered it: where it fails, the source is not to be had. */
  async start(): Promise<void> {
    await this.#pull()
  }

  async #pull(): Promise<boolean> {
    if (this.#pending === undefined) return false
    const page = await this.#pending
    // The next page is asked for at once: it is on its way while this one is printed.
    this.#pending = page.next === undefined ? undefined : quiet(this.#fetch(page.next))
    if (this.#pending === undefined) this.#done = true
    for (const item of page.items) this.#onItem?.(item)
    this.#buffer.push(...page.items)
    return true
  }

  /** The newest item not taken yet. */
  async peek(): Promise<T | undefined> {
    while (this.#buffer.length === 0 && !this.#done) if (!(await this.#pull())) break
    return this.#buffer[0]
  }

  take(): T | undefined {
    return this.#buffer.shift()
  }

  /** Read pages until every item at or after `ms` is buffered (what a line at `ms` may refer to). */
  async readTo(ms: number): Promise<void> {
    for (;;) {
      const last = this.#buffer.at(-1)
      if (this.#done || (last !== undefined && this.#timeOf(last) < ms)) return
      if (!(await this.#pull())) return
    }
  }

  /** The time of an item, in milliseconds. */
  timeOf(item: T): number {
    return this.#timeOf(item)
  }
}

/**
 * A page asked for ahead of time may fail before anyone waits for it: the failure is kept for
 * whoever reads it then, and is no unhandled rejection meanwhile.
 */
function quiet<P>(page: Promise<P>): Promise<P> {
  page.catch(() => undefined)
  return page
}

/** Every item a feed has from its head on, read to the end (the oldest-first order needs them all). */
export async function drain<T>(next: () => Promise<T | undefined>): Promise<T[]> {
  const all: T[] = []
  for (let item = await next(); item !== undefined; item = await next()) all.push(item)
  return all
}

/** Run `work` on every item with at most `limit` at once, keeping their order. */
export async function mapLimited<T, R>(
  items: T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length)
  let next = 0
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) results[i] = await work(items[i]!)
  }
  await Promise.all(Array.from({length: Math.min(limit, items.length)}, worker))
  return results
}
