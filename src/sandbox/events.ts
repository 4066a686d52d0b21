import type {EventName} from '../contract/events.js'
import {byPartner, type Database, type Schema, type Statement} from './database.js'
import {newId} from './ids.js'

/** The event log: what each partner's changes recorded, in order, for webhooks and GET /events. */
export const EVENTS: Schema = {
  name: 'events',
  sql: `
CREATE TABLE IF NOT EXISTS events (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  type TEXT NOT NULL,
  partner_id TEXT NOT NULL,
  data TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS events_by_partner ON events (partner_id, seq);
`,
  tables: [byPartner('events')],
}

export interface RecordedEvent {
  id: string
  type: EventName
  partnerId: string
  data: Record<string, unknown>
  createdAt: string
}

type EventListener = (event: RecordedEvent) => void
const listeners = new WeakMap<Database, Set<EventListener>>()

/**
 * Be told of each event recorded in `database`, by any EventLog (webhook delivery starts here).
 * The listener runs inside the recording transaction, which may still roll back: it should only
 * schedule work that reads the events table later. Returns a function that stops the calls.
 */
export function onEventRecorded(database: Database, listener: EventListener): () => void {
  const set = listeners.get(database) ?? new Set<EventListener>()
  listeners.set(database, set)
  set.add(listener)
  return () => set.delete(listener)
}

/**
 * The event log that webhook delivery reads. Call `record` inside the transaction that makes
 * the change, so an event exists exactly when its change does.
 */
export class EventLog {
  private readonly insert: Statement

  constructor(private readonly database: Database) {
    this.insert = database.prepare(
      'INSERT INTO events (id, type, partner_id, data, created_at) VALUES (?, ?, ?, ?, ?)',
    )
  }

  /** Record an event of the partner, dated `now` by the partner's clock. */
  record(type: EventName, partnerId: string, data: Record<string, unknown>, now: Date): RecordedEvent {
    const event: RecordedEvent = {id: newId.event(), type, partnerId, data, createdAt: now.toISOString()}
    this.insert.run(event.id, event.type, event.partnerId, JSON.stringify(event.data), event.createdAt)
    for (const listener of listeners.get(this.database) ?? []) listener(event)
    return event
  }
}

/** Record one event in `database` (see EventLog.record); for code that has no EventLog at hand. */
export function recordEvent(
  database: Database,
  type: EventName,
  partnerId: string,
  data: Record<string, unknown>,
): RecordedEvent {
  return new EventLog(database).record(type, partnerId, data, new Date())
}
