import {basename} from 'node:path'
import {z} from 'zod'
import {CreateUserSchema, currencySuffix, PAYMENT_METHODS} from '../../contract/index.js'
import {isSupportedCurrency, SUPPORTED_CURRENCIES} from '../../contract/money/currencies.js'
import {stringifyExact} from '../exact-json.js'
import {readDocument, type Where} from './document.js'
import {moneyFields, moneyProblem} from './money.js'
import {type Position, Problems, problemsError} from './problems.js'

/**
 * Seed fixtures: a declarative YAML or JSON file of records to create, referring to each other by
 * the fixture's own names (`${wallets.alice_usd.id}`), with counts for bulk data (`count: 1000`
 * and `{{i}}` in fields) and environment variables (`${env.NAME}`, `${env.NAME:-default}`).
 */

const Text = z.string().min(1)
// The text of an amount, however the file wrote it (a YAML number is read as its text): checked
// against the command line's rule once the record's currency is known.
const Amount = z
  .string({
    error: 'an amount: an integer in the smallest unit (1234) or a decimal with its currency (12.34USD)',
  })
  .min(1)
const MajorAmount = z.string({error: 'a decimal amount in major units, e.g. 5 or 4.35'}).min(1)
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
    max_roundup_amount: MajorAmount.describe('major units of `currency`, as the service takes it'),
    destination_account_id: Text.optional(),
    currency: Text.optional(),
  }),
  purchases: z.strictObject({
    ...count,
    user: Text,
    amount: MajorAmount.describe('major units, as the service takes it'),
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

/** Read and check a fixture file: every problem it has, each with its file, line and field. */
export async function loadFixture(path: string, env: NodeJS.ProcessEnv = process.env): Promise<Fixture> {
  const [fixture] = await loadFixtures([path], env)
  return fixture!
}

/**
 * Read and check fixture files, every one before any is used: a run reports every problem of every
 * file at once (all that can be known without the service), sorted by place, or none.
 */
export async function loadFixtures(
  paths: string[],
  env: NodeJS.ProcessEnv = process.env,
): Promise<Fixture[]> {
  const fixtures: Fixture[] = []
  const found: Problems[] = []
  for (const path of paths) {
    const problems = new Problems(path)
    const fixture = await readFixture(path, env, problems)
    found.push(problems)
    if (fixture !== undefined) fixtures.push(fixture)
  }
  if (found.some((p) => p.size > 0)) throw problemsError(found)
  return fixtures
}

/**
 * Check a fixture given as a document (an object, as a fixture file's YAML reads) rather than a
 * file, as loadFixture checks a file: every problem at once, named after `label`, the fixture's
 * name unless the document has one.
 */
export async function fixtureFromDocument(
  document: unknown,
  env: NodeJS.ProcessEnv = process.env,
  label = 'fixture',
): Promise<Fixture> {
  const problems = new Problems(label)
  const fixture = await readFixture(label, env, problems, stringifyExact(document, 2))
  if (problems.size > 0 || fixture === undefined) throw problemsError([problems])
  return fixture
}

const TOP = z.strictObject({
  version: z.literal(1).optional(),
  name: z.string().regex(NAME).optional(),
  ...Object.fromEntries(RECORD_KINDS.map((k) => [k, z.record(z.string(), z.unknown()).optional()])),
})

/**
 * One file's fixture, its problems noted in `problems`. A part with a problem is left out and the
 * rest is still checked, so that a problem does not hide the next one.
 */
async function readFixture(
  path: string,
  env: NodeJS.ProcessEnv,
  problems: Problems,
  text?: string,
): Promise<Fixture | undefined> {
  const document = await readDocument(path, problems, text)
  if (document === undefined) return undefined
  const {raw, where} = document
  const top = TOP.safeParse(raw ?? {})
  if (!top.success) reportZod(top.error, [], where, problems)
  if (!isObject(raw ?? {})) return undefined
  const given = (raw ?? {}) as Record<string, unknown>
  const sections: Partial<Record<RecordKind, Record<string, unknown>>> = {}
  for (const kind of RECORD_KINDS) {
    const section = Object.hasOwn(given, kind) ? given[kind] : undefined
    if (isObject(section)) sections[kind] = section
  }
  const {entries, records} = expandEntries(sections, env, where, problems)
  const referencedFields = linkReferences(records, entries, where, problems)
  checkAcyclic(records, (r) => where([r.kind, baseName(r)]), problems)
  checkValues(records, (r, field) => where([r.kind, baseName(r), field]), problems)
  const name = typeof given.name === 'string' && NAME.test(given.name) ? given.name : undefined
  return {name: name ?? basename(path).replace(/\.(ya?ml|json)$/i, ''), records, referencedFields}
}

/** A fixture entry by key (`wallets.alice_usd`), its count if it has one, and whether it is known. */
type Entries = Map<string, {kind: RecordKind; name: string; count?: number; countUnknown?: boolean}>

/** The entry's name of a record: `bulk` for `bulk[3]`. */
const baseName = (r: SeedRecord) => r.name.replace(/\[\d+\]$/, '')

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v)

/**
 * The records of each entry, checked against its kind's schema: one, or `count` of them, with
 * `{{i}}`, `{{n}}` and environment variables filled in and references still to resolve. An entry
 * the schema refuses keeps its other fields, so that their problems are found too.
 */
function expandEntries(
  fixture: Partial<Record<RecordKind, Record<string, unknown>>>,
  env: NodeJS.ProcessEnv,
  where: Where,
  problems: Problems,
): {entries: Entries; records: SeedRecord[]} {
  const entries: Entries = new Map()
  const records: SeedRecord[] = []
  for (const kind of RECORD_KINDS) {
    for (const [name, value] of Object.entries(fixture[kind] ?? {})) {
      if (!NAME.test(name)) {
        problems.add(where([kind, name]), `${kind}.${name}: names are letters, digits, _ and -`)
        continue
      }
      const parsed = RECORD_SCHEMAS[kind].safeParse(value)
      let data: Record<string, unknown>
      if (parsed.success) data = parsed.data as Record<string, unknown>
      else {
        reportZod(parsed.error, [kind, name], where, problems)
        data = withoutRefused(value, parsed.error)
      }
      const {
        count: n,
        after,
        ...fields
      } = data as {count?: number; after?: string[]} & Record<string, unknown>
      // A count the schema refused says nothing of which instances exist: references to it are not
      // checked against it.
      const countUnknown = !parsed.success && isObject(value) && value.count !== undefined && n === undefined
      entries.set(`${kind}.${name}`, {
        kind,
        name,
        ...(n === undefined ? {} : {count: n}),
        ...(countUnknown ? {countUnknown} : {}),
      })
      for (let i = 0; i < (n ?? 1); i++) {
        // An unset variable is told at the field it is in (`at`: its path in the record).
        const template = (s: string, at: (string | number)[]) =>
          substituteEnv(s.replaceAll('{{i}}', String(i)).replaceAll('{{n}}', String(i + 1)), env, (message) =>
            problems.add(where([kind, name, ...at]), `${[kind, name, ...at].join('.')}: ${message}`),
          )
        records.push({
          kind,
          name: n === undefined ? name : `${name}[${i}]`,
          fields: fillAt(fields, [], template) as Record<string, unknown>,
          dependsOn: [],
          // `after: [section.name]` orders like a reference to that record's id would.
          after: (after ?? []).map((a, j) => template(`\${${a}.id}`, ['after', j])),
        })
      }
    }
  }
  return {entries, records}
}

/** The fields of a record the schema refused that it did not refuse, to check them all the same. */
function withoutRefused(value: unknown, error: z.ZodError): Record<string, unknown> {
  if (!isObject(value)) return {}
  const refused = new Set<string>()
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') for (const key of issue.keys) refused.add(key)
    else if (issue.path.length > 0) refused.add(String(issue.path[0]))
  }
  return Object.fromEntries(Object.entries(value).filter(([key]) => !refused.has(key)))
}

/**
 * Set each record's `dependsOn` from the references in its fields and `after:` list, each of which
 * must name a record of the fixture (and an instance that exists). Answers the fields other records
 * read of each record, besides its id.
 */
function linkReferences(
  records: SeedRecord[],
  entries: Entries,
  where: Where,
  problems: Problems,
): Map<string, Set<string>> {
  const referencedFields = new Map<string, Set<string>>()
  for (const record of records) {
    const base = baseName(record)
    const deps = new Set<string>()
    eachString([record.fields, record.after ?? []], (s) => {
      if (!s.includes('${')) return
      for (const m of s.matchAll(REF)) {
        const [, kind = '', name = '', index, field] = m
        const entry = entries.get(`${kind}.${name}`)
        // Only for a problem: it walks the YAML document, and this loop runs for every reference.
        const problem = (text: string) =>
          problems.add(where([record.kind, base]), `${record.kind}.${base}: ${text}`)
        if (!entry) {
          problem(`\${${kind}.${name}.${field}} names no record of the fixture`)
          continue
        }
        if (!entry.countUnknown) {
          if (entry.count === undefined && index !== undefined) {
            problem(`${kind}.${name} has no count, so no [${index}]`)
            continue
          }
          if (entry.count !== undefined && index === undefined) {
            problem(`${kind}.${name} has a count: say which one, e.g. ${kind}.${name}[0] or [{{i}}]`)
            continue
          }
          if (entry.count !== undefined && Number(index) >= entry.count) {
            problem(`${kind}.${name}[${index}] is past its count of ${entry.count}`)
            continue
          }
        }
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

/**
 * `fill`, telling `onString` where each string is: its path from `value`, under `at` (for reading a
 * fixture; a run fills references with `fill`, which builds no paths).
 */
function fillAt(
  value: unknown,
  at: (string | number)[],
  onString: (s: string, at: (string | number)[]) => unknown,
): unknown {
  if (typeof value === 'string') return onString(value, at)
  if (Array.isArray(value)) return value.map((v, i) => fillAt(v, [...at, i], onString))
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fillAt(v, [...at, k], onString)]))
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

function substituteEnv(s: string, env: NodeJS.ProcessEnv, problem: (message: string) => void): string {
  return s.replace(ENV, (whole, name: string, fallback: string | undefined) => {
    // Only the variables themselves: `${env.toString}` must not find what every object inherits.
    const value = (Object.hasOwn(env, name) ? env[name] : undefined) ?? fallback
    if (value !== undefined) return value
    problem(`environment variable ${name} is not set (write \${env.${name}:-default} for a default)`)
    // Left as written: a value with `${` in it is not checked as a literal, so nothing more is said.
    return whole
  })
}

/** Text known before the run: no reference to another record's field, filled at run time. */
const literal = (v: unknown): v is string => typeof v === 'string' && !v.includes('${')

/**
 * What the service would refuse, caught before anything is sent: an email that is not one, an
 * unsupported currency, an amount the command line would not read (or not in its currency), a
 * transaction with no currency, and two wallets of one user in one currency. Values that come from
 * another record are checked by the service as they are sent.
 */
function checkValues(
  records: SeedRecord[],
  where: (r: SeedRecord, field: string) => Position,
  problems: Problems,
): void {
  // The records of a counted entry share its place: a problem they have alike is told once, by the
  // entry's name; one that quotes a value of its own (`{{i}}` in it) is told for each value.
  const fail = (r: SeedRecord, field: string, message: string) =>
    problems.add(where(r, field), `${r.kind}.${baseName(r)}.${field}: ${message}`)
  const wallets = new Map<string, string>()
  for (const r of records) {
    const f = r.fields
    if (r.kind === 'users' && literal(f.email) && !CreateUserSchema.shape.email.safeParse(f.email).success) {
      fail(r, 'email', `"${f.email}" is not an email address`)
    }
    let currency: string | undefined
    let known = false
    if (literal(f.currency)) {
      currency = f.currency.toUpperCase()
      known = isSupportedCurrency(currency)
      if (!known)
        fail(r, 'currency', `unsupported currency "${f.currency}"; one of ${SUPPORTED_CURRENCIES.join(', ')}`)
    }
    for (const field of moneyFields(r.kind)) {
      const v = f[field]
      if (!literal(v)) continue
      // An unsupported currency is its own problem: the amount is read without it.
      const problem = moneyProblem(r.kind, field, v, known ? currency : undefined)
      if (problem !== undefined) fail(r, field, problem)
    }
    if (
      r.kind === 'transactions' &&
      f.currency === undefined &&
      literal(f.amount) &&
      !currencySuffix(f.amount)
    )
      fail(
        r,
        'currency',
        'missing: a transaction needs currency (currency: USD), or an amount with its currency (12.34USD)',
      )
    if (r.kind === 'wallets' && typeof f.user === 'string' && currency !== undefined) {
      const key = `${f.user} ${currency}`
      const first = wallets.get(key)
      if (first !== undefined)
        problems.add(
          where(r, 'currency'),
          `${r.kind}.${r.name}.currency: ${first} is already this user's ${currency} wallet`,
        )
      wallets.set(key, `${r.kind}.${r.name}`)
    }
  }
}

/** Report each circle of references once: the records of a circle cannot be created in any order. */
function checkAcyclic(records: SeedRecord[], where: (r: SeedRecord) => Position, problems: Problems): void {
  const byKey = new Map(records.map((r) => [recordKey(r), r]))
  const state = new Map<string, 'visiting' | 'done'>()
  const visit = (key: string, trail: string[]) => {
    if (state.get(key) === 'done') return
    if (state.get(key) === 'visiting') {
      const circle = [...trail.slice(trail.indexOf(key)), key]
      problems.add(where(byKey.get(key)!), `references go round in a circle: ${circle.join(' → ')}`)
      return
    }
    state.set(key, 'visiting')
    for (const dep of byKey.get(key)?.dependsOn ?? []) visit(dep, [...trail, key])
    state.set(key, 'done')
  }
  for (const key of byKey.keys()) visit(key, [])
}

/** Each issue the schema found, at the place of the field it is about. */
function reportZod(
  error: z.ZodError,
  prefix: (string | number)[],
  where: (p: (string | number)[]) => Position,
  problems: Problems,
): void {
  for (const issue of error.issues) {
    const path = [...prefix, ...(issue.path as (string | number)[])]
    const field = path.length > 0 ? path.join('.') : '(top level)'
    // An unknown top-level section is pointed at itself, there being no record to point at.
    if (issue.code === 'unrecognized_keys' && path.length === 0) {
      for (const key of issue.keys) problems.add(where([key]), `${field}: Unrecognized key: "${key}"`)
      continue
    }
    problems.add(where(path), `${field}: ${issue.message}`)
  }
}
