import {timingSafeEqual} from 'node:crypto'
import type {Database, Statement} from '../storage/database.js'
import {randomHex} from '../storage/ids.js'

/** The credentials of a partner the sandbox serves. */
export interface SandboxCredentials {
  /** Variant A public identifier, `pk_test_…`. Never a Bearer credential on its own. */
  apiKey: string
  /** Variant A secret, `sk_test_…`, exchanged with the api key for an access token. */
  apiSecret: string
  partnerId: string
  /** Variant B secret key, `test_…`, sent directly as a Bearer credential. */
  secretKey: string
}

/**
 * Characters a chosen secret needs after its prefix. What stops guessing is the length of the
 * secrets (the failure limits never refuse the right one): generated ones carry 48 hex digits.
 */
export const MIN_SECRET_LENGTH = 16

/** The characters of a credential after its prefix, as a character class. */
export const CREDENTIAL_CHARS = 'A-Za-z0-9_-'

const FORMATS: Record<keyof SandboxCredentials, {pattern: RegExp; hint: string}> = {
  apiKey: {
    pattern: new RegExp(`^pk_test_[${CREDENTIAL_CHARS}]{1,128}$`),
    hint: 'pk_test_ followed by letters, digits, _ or -',
  },
  apiSecret: {
    pattern: new RegExp(`^sk_test_[${CREDENTIAL_CHARS}]{${MIN_SECRET_LENGTH},128}$`),
    hint: `sk_test_ followed by ${MIN_SECRET_LENGTH} to 128 letters, digits, _ or -`,
  },
  partnerId: {pattern: new RegExp(`^[${CREDENTIAL_CHARS}]{1,64}$`), hint: 'up to 64 letters, digits, _ or -'},
  secretKey: {
    pattern: new RegExp(`^test_[${CREDENTIAL_CHARS}]{${MIN_SECRET_LENGTH},128}$`),
    hint: `test_ followed by ${MIN_SECRET_LENGTH} to 128 letters, digits, _ or -`,
  },
}

function generated(): SandboxCredentials {
  return {
    apiKey: `pk_test_${randomHex(16)}`,
    apiSecret: `sk_test_${randomHex(24)}`,
    partnerId: `partner_${randomHex(8)}`,
    secretKey: `test_${randomHex(24)}`,
  }
}

/** Constant-time comparison of two secrets. */
export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

interface PartnerRow {
  partner_id: string
  api_key: string
  api_secret: string
  secret_key: string
  name: string | null
  created_at: string
}

function toCredentials(row: PartnerRow): SandboxCredentials {
  return {
    apiKey: row.api_key,
    apiSecret: row.api_secret,
    partnerId: row.partner_id,
    secretKey: row.secret_key,
  }
}

/** A partner as the operator sees it: who, since when, and whether it is the operator. */
export interface PartnerEntry {
  name: string
  partnerId: string
  createdAt: string
  operator: boolean
}

/**
 * Decide which partner this run starts with (the operator) and store its credentials: the given
 * partner id, else the partner that last ran on this data file, else a new one. Given fields
 * replace stored ones, missing ones are kept or generated. Throws on a malformed credential or one
 * another partner already holds.
 */
export function resolvePartner(
  database: Database,
  given: Partial<SandboxCredentials> = {},
): SandboxCredentials {
  for (const [field, value] of Object.entries(given) as [keyof SandboxCredentials, string | undefined][]) {
    if (value === undefined) continue
    const format = FORMATS[field]
    if (format === undefined) throw new Error(`unknown sandbox credential "${field}"`)
    if (!format.pattern.test(value)) throw new Error(`sandbox credential ${field} must be ${format.hint}`)
  }
  return database.transaction(() => {
    const stored =
      given.partnerId !== undefined
        ? database.prepare<PartnerRow>('SELECT * FROM partners WHERE partner_id = ?').get(given.partnerId)
        : database
            .prepare<PartnerRow>('SELECT * FROM partners ORDER BY started_at DESC, rowid DESC LIMIT 1')
            .get()
    const fresh = generated()
    const base = stored === undefined ? fresh : toCredentials(stored)
    const creds: SandboxCredentials = {
      apiKey: given.apiKey ?? base.apiKey,
      apiSecret: given.apiSecret ?? base.apiSecret,
      partnerId: given.partnerId ?? base.partnerId,
      secretKey: given.secretKey ?? base.secretKey,
    }
    const clash = database
      .prepare<{partner_id: string}>(
        'SELECT partner_id FROM partners WHERE partner_id != ? AND (api_key = ? OR secret_key = ? OR name = ?)',
      )
      .get(creds.partnerId, creds.apiKey, creds.secretKey, creds.partnerId)
    if (clash !== undefined) {
      throw new Error(
        `that partner id, api key or secret key already belongs to partner ${clash.partner_id} in this data file`,
      )
    }
    const now = new Date().toISOString()
    database
      .prepare(
        `INSERT INTO partners (partner_id, api_key, api_secret, secret_key, name, created_at, started_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (partner_id) DO UPDATE SET
         api_key = excluded.api_key, api_secret = excluded.api_secret,
         secret_key = excluded.secret_key, started_at = excluded.started_at`,
      )
      .run(creds.partnerId, creds.apiKey, creds.apiSecret, creds.secretKey, creds.partnerId, now, now)
    return creds
  })
}

/**
 * Every partner of the data file, indexed by each credential: loaded at start, and kept as the
 * operator creates and deletes partners while the sandbox serves them side by side.
 */
export class PartnerDirectory {
  private readonly byId = new Map<string, SandboxCredentials>()
  private readonly byApiKey = new Map<string, SandboxCredentials>()
  private readonly bySecretKey = new Map<string, SandboxCredentials>()
  private readonly entries = new Map<string, PartnerEntry>()
  private readonly insert: Statement
  private readonly one: Statement<PartnerRow>

  /** @param operator the partner this run was started with (resolvePartner's answer). */
  constructor(
    database: Database,
    readonly operator: string,
  ) {
    for (const row of database
      .prepare<PartnerRow>('SELECT * FROM partners ORDER BY created_at, rowid')
      .all()) {
      this.#add(toCredentials(row), row.name ?? row.partner_id, row.created_at)
    }
    this.one = database.prepare<PartnerRow>('SELECT * FROM partners WHERE partner_id = ?')
    this.insert = database.prepare(
      `INSERT INTO partners (partner_id, api_key, api_secret, secret_key, name, created_at, started_at)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    )
  }

  get(partnerId: string): SandboxCredentials | undefined {
    return this.byId.get(partnerId)
  }

  byPublicKey(apiKey: string): SandboxCredentials | undefined {
    return this.byApiKey.get(apiKey)
  }

  bySecret(secretKey: string): SandboxCredentials | undefined {
    return this.bySecretKey.get(secretKey)
  }

  /** Every partner's id. */
  ids(): Iterable<string> {
    return this.byId.keys()
  }

  /** Every partner, oldest first. */
  list(): PartnerEntry[] {
    // Sorted: a partner a restore brought back comes where it was, not last.
    return [...this.entries.values()].sort((a, b) => a.createdAt.localeCompare(b.createdAt))
  }

  byName(name: string): PartnerEntry | undefined {
    return [...this.entries.values()].find((entry) => entry.name === name)
  }

  /**
   * A new partner named `name`, with fresh credentials, stored in the caller's transaction and
   * known to the directory at once. Undefined when the name is taken.
   */
  create(name: string, now: string): {credentials: SandboxCredentials; entry: PartnerEntry} | undefined {
    if (this.byName(name) !== undefined) return undefined
    const credentials = generated()
    this.insert.run(
      credentials.partnerId,
      credentials.apiKey,
      credentials.apiSecret,
      credentials.secretKey,
      name,
      now,
      // Never started with: a restart of the data file keeps its operator (resolvePartner).
      '',
    )
    return {credentials, entry: this.#add(credentials, name, now)}
  }

  /** Forget a partner whose rows were deleted: its credentials stop working at once. */
  forget(partnerId: string): void {
    const creds = this.byId.get(partnerId)
    if (creds === undefined) return
    this.byId.delete(partnerId)
    this.byApiKey.delete(creds.apiKey)
    this.bySecretKey.delete(creds.secretKey)
    this.entries.delete(partnerId)
  }

  /** Read the partner again from the data file (a restored snapshot brought it back, or took it away). */
  reload(partnerId: string): void {
    this.forget(partnerId)
    const row = this.one.get(partnerId)
    if (row !== undefined) this.#add(toCredentials(row), row.name ?? row.partner_id, row.created_at)
  }

  #add(creds: SandboxCredentials, name: string, createdAt: string): PartnerEntry {
    this.byId.set(creds.partnerId, creds)
    this.byApiKey.set(creds.apiKey, creds)
    this.bySecretKey.set(creds.secretKey, creds)
    const entry = {name, partnerId: creds.partnerId, createdAt, operator: creds.partnerId === this.operator}
    this.entries.set(creds.partnerId, entry)
    return entry
  }
}
