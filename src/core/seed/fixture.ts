import {readFileSync} from 'node:fs'
import {basename} from 'node:path'
import {z} from 'zod'
import {isSupportedCurrency, SUPPORTED_CURRENCIES} from '../../contract/currencies.js'
import {CreateUserSchema, PAYMENT_METHODS} from '../../contract/index.js'
import {PayctlError} from '../errors.js'
import {parseAmount} from '../money.js'

/**
 * Seed fixtures: a declarative YAML or JSON file of records to create, referring to each other by
 * the fixture's own names (`${wallets.alice_usd.id}`), with counts for bulk data (`count: 1000`
 * and `{{i}}` in fields) and environment variables (`${env.NAME}`, `${env.NAME:-default}`).
 */

const Text = z.string().min(1)
const Amount = z.union([z.string().min(1), z.number().int().positive()])
const count = {
  count: z.number().int().min(1).max(100_000).optional().describe('create this many, {{i}} = 0…count-1'),
  after: z
    .array(z.string().regex(/^\w+\.[A-Za-z][\w-]*(\[[^\]]+\])?$/, 'write section.name or section.name[i]'))
    .optional()
    .describe('records to create first, when no field refers to them'),
}

export const RECORD_SCHEMAS = {
  users: z.strictObject({
    ...count,
    email: Text,
    first_name: Text,
    last_name: Text,
    external_id: Text.optional(),
  }),
  wallets: z.strictObject({
    ...count,
    user: Text,
    currency: Text,
    label: z.string().max(50).optional(),
    initial_balance: Amount.optional(),
  }),
  payment_methods: z.strictObject({...count, user: Text, type: Text, token: Text}),
  transactions: z.strictObject({
    ...count,
    method: z.enum(PAYMENT_METHODS),
    amount: Amount,
    currency: Text.optional(),
    from: Text.optional(),
    to: Text.optional(),
    payment_method: Text.optional(),
    description: z.string().optional(),
    metadata: z.record(z.string(), z.string()).optional(),
  }),
  webhooks: z.strictObject({...count, url: Text, events: z.array(Text).min(1)}),
  roundup_settings: z.strictObject({
    ...count,
    user: Text,
    enabled: z.boolean().default(true),
    multiplier: z.union([z.literal(1), z.literal(2), z.literal(3), z.literal(5)]),
    max_roundup_amount: z.number().positive(),
    destination_account_id: Text.optional(),
    currency: Text.optional(),
  }),
  purchases: z.strictObject({
    ...count,
    user: Text,
    amount: z.number().positive().describe('major units, as the service takes it'),
    merchant_name: Text,
    transaction_id: Text.optional().describe("default: derived from the fixture and the record's name"),
  }),
  bnpl_payments: z.strictObject({
    ...count,
    user: Text,
    amount: Amount,
    currency: Text.optional(),
    merchant_name: Text,
    description: z.string().optional(),
  }),
} as const

export type RecordKind = keyof typeof RECORD_SCHEMAS
export const RECORD_KINDS = Object.keys(RECORD_SCHEMAS) as RecordKind[]

const NAME = /^[A-Za-z][\w-]*$/

/** One record to create: a fixture entry, or one instance of a counted entry (`bulk[3]`). */
export interface SeedRecord {
  kind: RecordKind
  /** `alice`, or `bulk[3]` for the fourth instance of a counted entry. */
  name: string
  /** Fields, with `{{i}}` and env vars filled in; `${…}` references still to resolve. */
  fields: Record<string, unknown>
  /** Keys (`wallets.alice_usd`) of the records this one refers to or must come after. */
  dependsOn: string[]
  /** `after:` entries, as references, checked like the fields' references. */
  after?: string[]
}

export interface Fixture {
  /** Name used to derive idempotency keys: the fixture's `name`, else its file name. */
  name: string
  records: SeedRecord[]
  /** The fields other records read of each record (by key), besides its `id`. */
  referencedFields?: Map<string, Set<string>>
}

export const recordKey = (r: {kind: string; name: string}) => `${r.kind}.${r.name}`

// ${kind.name.field} or ${kind.name[3].field}
const REF = /\$\{(\w+)\.([A-Za-z][\w-]*)(?:\[(\d+)\])?\.(\w+)\}/g
const ENV = /\$\{env\.([A-Za-z_]\w*)(?::-([^}]*))?\}/g

/** Read and check a fixture file; every problem names the file, line and field. */
export async function loadFixture(path: string, env: NodeJS.ProcessEnv = process.env): Promise<Fixture> {
  const {raw, where} = await readDocument(path)
  const top = z
    .strictObject({
      version: z.literal(1).optional(),
      name: z.string().regex(NAME).optional(),
      ...Object.fromEntries(RECORD_KINDS.map((k) => [k, z.record(z.string(), z.unknown()).optional()])),
    })
    .safeParse(raw ?? {})
  if (!top.success) throw fromZod(top.error, [], where)

  const fixture = top.data as {name?: string} & Partial<Record<RecordKind, Record<string, unknown>>>
  const {entries, records} = expandEntries(fixture, env, where)
  const referencedFields = linkReferences(records, entries, where)
  checkAcyclic(records, (r) => where([r.kind, r.name.replace(/\[\d+\]$/, '')]))
  checkValues(records, (r, field) => where([r.kind, r.name.replace(/\[\d+\]$/, ''), field]))
  return {name: fixture.name ?? basename(path).replace(/\.(ya?ml|json)$/i, ''), records, referencedFields}
}

/** `file:line:col` of the deepest part of a path (`[kind, name, field]`) that the file has. */
type Where = (segments: (string | number)[]) => string

/** A fixture entry by key (`wallets.alice_usd`), and its count if it has one. */
type Entries = Map<string, {kind: RecordKind; name: string; count?: number}>

/** The file's YAML (or JSON) as plain data, and where each part of it is, for error messages. */
async function readDocument(path: string): Promise<{raw: unknown; where: Where}> {
  const YAML = await import('yaml')
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (err) {
    throw fixtureError(`cannot read ${path}: ${(err as Error).message}`)
  }
  const lines = new YAML.LineCounter()
  const doc = YAML.parseDocument(text, {lineCounter: lines, uniqueKeys: true})
  const position = (offset: number) => {
    const at = lines.linePos(offset)
    return `${path}:${at.line}:${at.col}`
  }
  // file:line:col of the deepest part of `segments` that the file has: a field's key, else its
  // record's, else where the document starts.
  const where = (segments: (string | number)[]) => {
    for (let n = segments.length; n > 0; n--) {
      const parent = doc.getIn(segments.slice(0, n - 1), true) as
        | {items?: {key?: {value?: unknown; range?: number[]}}[]}
        | undefined
      const pair = parent?.items?.find((p) => String(p.key?.value) === String(segments[n - 1]))
      const offset = pair?.key?.range?.[0]
      if (offset !== undefined) return position(offset)
    }
    return position(doc.contents?.range[0] ?? 0)
  }
  if (doc.errors.length > 0) {
    const e = doc.errors[0]!
    throw fixtureError(`${position(e.pos[0])}: ${e.message.split('\n')[0]}`)
  }
  try {
    return {raw: doc.toJS(), where}
  } catch (err) {
    // The yaml library refuses aliases that would expand without end (a "billion laughs" file).
    let alias: number | undefined
    YAML.visit(doc, {
      Alias: (_key, node) => {
        alias ??= node.range?.[0]
      },
    })
    throw fixtureError(`${position(alias ?? 0)}: ${(err as Error).message}`)
  }
}

/**
 * The records of each entry, checked against its kind's schema: one, or `count` of them, with
 * `{{i}}`, `{{n}}` and environment variables filled in and references still to resolve.
 */
function expandEntries(
  fixture: Partial<Record<RecordKind, Record<string, unknown>>>,
  env: NodeJS.ProcessEnv,
  where: Where,
): {entries: Entries; records: SeedRecord[]} {
  const entries: Entries = new Map()
  const records: SeedRecord[] = []
  for (const kind of RECORD_KINDS) {
    for (const [name, value] of Object.entries(fixture[kind] ?? {})) {
      if (!NAME.test(name))
        throw fixtureError(`${where([kind, name])}: ${kind}.${name}: names are letters, digits, _ and -`)
      const parsed = RECORD_SCHEMAS[kind].safeParse(value)
      if (!parsed.success) throw fromZod(parsed.error, [kind, name], where)
      const {
        count: n,
        after,
        ...fields
      } = parsed.data as {count?: number; after?: string[]} & Record<string, unknown>
      entries.set(`${kind}.${name}`, {kind, name, ...(n === undefined ? {} : {count: n})})
      for (let i = 0; i < (n ?? 1); i++) {
        const template = (s: string) =>
          substituteEnv(s.replaceAll('{{i}}', String(i)).replaceAll('{{n}}', String(i + 1)), env, () =>
            where([kind, name]),
          )
        records.push({
          kind,
          name: n === undefined ? name : `${name}[${i}]`,
          fields: fill(fields, template) as Record<string, unknown>,
          dependsOn: [],
          // `after: [section.name]` orders like a reference to that record's id would.
          after: (after ?? []).map((a) => template(`\${${a}.id}`)),
        })
      }
    }
  }
  return {entries, records}
}

/**
 * Set each record's `dependsOn` from the references in its fields and `after:` list, each of which
 * must name a record of the fixture (and an instance that exists). Answers the fields other records
 * read of each record, besides its id.
 */
function linkReferences(records: SeedRecord[], entries: Entries, where: Where): Map<string, Set<string>> {
  const referencedFields = new Map<string, Set<string>>()
  for (const record of records) {
    const base = record.name.replace(/\[\d+\]$/, '')
    const deps = new Set<string>()
    eachString([record.fields, record.after ?? []], (s) => {
      if (!s.includes('${')) return
      for (const m of s.matchAll(REF)) {
        const [, kind = '', name = '', index, field] = m
        const entry = entries.get(`${kind}.${name}`)
        // Only for an error: it walks the YAML document, and this loop runs for every reference.
        const at = () => where([record.kind, base])
        if (!entry)
          throw fixtureError(
            `${at()}: ${record.kind}.${base}: \${${kind}.${name}.${field}} names no record of the fixture`,
          )
        if (entry.count === undefined && index !== undefined)
          throw fixtureError(
            `${at()}: ${record.kind}.${base}: ${kind}.${name} has no count, so no [${index}]`,
          )
        if (entry.count !== undefined && index === undefined)
          throw fixtureError(
            `${at()}: ${record.kind}.${base}: ${kind}.${name} has a count: say which one, e.g. ${kind}.${name}[0] or [{{i}}]`,
          )
        if (entry.count !== undefined && Number(index) >= entry.count)
          throw fixtureError(
            `${at()}: ${record.kind}.${base}: ${kind}.${name}[${index}] is past its count of ${entry.count}`,
          )
        const key = `${kind}.${index === undefined ? name : `${name}[${index}]`}`
        deps.add(key)
        if (field !== undefined && field !== 'id') {
          const fields = referencedFields.get(key)
          if (fields === undefined) referencedFields.set(key, new Set([field]))
          else fields.add(field)
        }
      }
    })
    record.dependsOn = [...deps]
  }
  return referencedFields
}

/** Replace `${kind.name.field}` references with the values of created records. */
export function resolveRefs(value: unknown, lookup: (key: string, field: string) => unknown): unknown {
  return fill(value, (s) => {
    const whole = /^\$\{(\w+)\.([A-Za-z][\w-]*(?:\[\d+\])?)\.(\w+)\}$/.exec(s)
    if (whole) return lookup(`${whole[1]}.${whole[2]}`, whole[3]!)
    return s.replace(REF, (_m, kind: string, name: string, index: string | undefined, field: string) =>
      String(lookup(`${kind}.${index === undefined ? name : `${name}[${index}]`}`, field)),
    )
  })
}

function fill(value: unknown, onString: (s: string) => unknown): unknown {
  if (typeof value === 'string') return onString(value)
  if (Array.isArray(value)) return value.map((v) => fill(v, onString))
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v, onString)]))
  }
  return value
}

/** `fill` for reading only: the strings of `value`, without building a copy of it. */
function eachString(value: unknown, onString: (s: string) => void): void {
  if (typeof value === 'string') onString(value)
  else if (Array.isArray(value)) for (const v of value) eachString(v, onString)
  else if (value !== null && typeof value === 'object')
    for (const key of Object.keys(value)) eachString((value as Record<string, unknown>)[key], onString)
}

function substituteEnv(s: string, env: NodeJS.ProcessEnv, where: () => string): string {
  return s.replace(ENV, (_m, name: string, fallback: string | undefined) => {
    // Only the variables themselves: `${env.toString}` must not find what every object inherits.
    const value = (Object.hasOwn(env, name) ? env[name] : undefined) ?? fallback
    if (value === undefined)
      throw fixtureError(
        `${where()}: environment variable ${name} is not set (write \${env.${name}:-default} for a default)`,
      )
    return value
  })
}

/** Text known before the run: no reference to another record's field, filled at run time. */
const literal = (v: unknown): v is string => typeof v === 'string' && !v.includes('${')

/**
 * What the service would refuse, caught before anything is sent: an email that is not one, an
 * unsupported currency, an amount that is not one of its currency, and two wallets of one user in
 * one currency. Values that come from another record are checked by the service as they are sent.
 */
function checkValues(records: SeedRecord[], where: (r: SeedRecord, field: string) => string): void {
  const fail = (r: SeedRecord, field: string, message: string): never => {
    throw fixtureError(`${where(r, field)}: ${r.kind}.${r.name}.${field}: ${message}`)
  }
  const wallets = new Map<string, string>()
  for (const r of records) {
    const f = r.fields
    if (r.kind === 'users' && literal(f.email) && !CreateUserSchema.shape.email.safeParse(f.email).success) {
      fail(r, 'email', `"${f.email}" is not an email address`)
    }
    let currency: string | undefined
    if (literal(f.currency)) {
      currency = f.currency.toUpperCase()
      if (!isSupportedCurrency(currency))
        fail(r, 'currency', `unsupported currency "${f.currency}"; one of ${SUPPORTED_CURRENCIES.join(', ')}`)
    }
    for (const field of ['initial_balance', 'amount']) {
      const v = f[field]
      if (r.kind === 'purchases' || !literal(v)) continue
      try {
        parseAmount(v, currency)
      } catch (err) {
        fail(r, field, (err as Error).message)
      }
    }
    if (r.kind === 'wallets' && typeof f.user === 'string' && currency !== undefined) {
      const key = `${f.user} ${currency}`
      const first = wallets.get(key)
      if (first !== undefined) fail(r, 'currency', `${first} is already this user's ${currency} wallet`)
      wallets.set(key, `${r.kind}.${r.name}`)
    }
  }
}

function checkAcyclic(records: SeedRecord[], where: (r: SeedRecord) => string): void {
  const byKey = new Map(records.map((r) => [recordKey(r), r]))
  const state = new Map<string, 'visiting' | 'done'>()
  const visit = (key: string, trail: string[]) => {
    if (state.get(key) === 'done') return
    if (state.get(key) === 'visiting')
      throw fixtureError(
        `${where(byKey.get(key)!)}: references go round in a circle: ${[...trail, key].join(' → ')}`,
      )
    state.set(key, 'visiting')
    for (const dep of byKey.get(key)?.dependsOn ?? []) visit(dep, [...trail, key])
    state.set(key, 'done')
  }
  for (const key of byKey.keys()) visit(key, [])
}

function fromZod(
  error: z.ZodError,
  prefix: (string | number)[],
  where: (p: (string | number)[]) => string,
): PayctlError {
  const issue = error.issues[0]!
  const path = [...prefix, ...(issue.path as (string | number)[])]
  const field = path.length > 0 ? path.join('.') : '(top level)'
  const extra = error.issues.length > 1 ? ` (and ${error.issues.length - 1} more)` : ''
  // An unknown top-level section is pointed at itself, there being no record to point at.
  const at = issue.code === 'unrecognized_keys' && path.length === 0 ? [issue.keys[0] ?? ''] : path
  return fixtureError(`${where(at)}: ${field}: ${issue.message}${extra}`)
}

function fixtureError(message: string): PayctlError {
  return new PayctlError({kind: 'usage', code: 'INVALID_FIXTURE', message})
}
