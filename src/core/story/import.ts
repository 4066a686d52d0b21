import {readFileSync} from 'node:fs'
import {z} from 'zod'
import {type LoadedStory, type Story, StorySchema} from '../../contract/story.js'
import type {PayctlClient} from '../client.js'
import {PayctlError, usageError} from '../errors.js'
import type {Missing} from '../investigation.js'
import {writeFileAtomically} from '../seed/export.js'
import {storyDocument} from './document.js'
import {readStory} from './read.js'
import {Redactor} from './redact.js'

/**
 * `payctl sandbox import`: a customer's story read from any service (reads only), redacted, and
 * either loaded into a local sandbox under new ids or written as a story fixture that `payctl seed`
 * loads later (docs/investigations.md#bringing-the-story-home).
 */

export interface ImportOptions {
  /** A user id, or the email of one user. */
  user: string
  since?: string | undefined
  /** Whether the source is a payctl sandbox (its clock is its now). */
  sourceIsSandbox: boolean
  /** The redaction key (redact.ts: redactionKey). */
  key: Buffer
  keepMetadata?: readonly string[] | undefined
}

export interface ReadyStory {
  story: Story
  /** The user's id at the source, for the audit log. */
  sourceUserId: string
  /** Each source id and the reference of its record in the story. */
  refs: Map<string, string>
  missing: Missing[]
  counts: Record<string, number>
}

/** What a loaded story cannot hold, by design or because no interface shows it. */
export const NOT_RECREATED = [
  'webhook registrations and their signing secrets: the deliveries are kept as they fared, to a listen session ended before they were made, so nothing new goes to them',
  'the other side of a transfer or round-up to someone else: an empty wallet of a stand-in user',
  'round-up transfer records (their transactions and events are kept), bank accounts and wallet volumes',
  'the source’s request ids, idempotency keys, tokens and credentials',
] as const

/**
 * The user as the audit log names them: an id as it is, an email as the import redacts it
 * (`user-<hash>@example.test`, the imported user's own email), never as it was typed.
 */
export function auditedUser(user: string, key: Buffer): string {
  return user.includes('@') ? new Redactor(key).email(user) : user
}

/** Read and redact the story of one user from `source`. */
export async function prepareStory(source: PayctlClient, opts: ImportOptions): Promise<ReadyStory> {
  const read = await readStory(source, {user: opts.user, since: opts.since, sandbox: opts.sourceIsSandbox})
  const redactor = new Redactor(opts.key, opts.keepMetadata)
  // Not checked against the schema here: the sandbox checks every story it loads, and a second
  // copy of ten thousand records would double the command's memory.
  const {story, refs} = storyDocument(read, redactor)
  const counts = {
    wallets: read.wallets.length,
    transactions: read.transactions.length,
    ledgerEntries: story.ledger_entries?.length ?? 0,
    events: read.events.length,
    bnplPayments: Object.keys(story.bnpl_payments ?? {}).length,
    pendingRoundups: Object.keys(story.roundups ?? {}).length,
  }
  return {story, sourceUserId: String(read.user.id), refs, missing: read.missing, counts}
}

/** Load a story into the sandbox `target` calls (a local sandbox: POST /_sandbox/story). */
export function loadStory(target: PayctlClient, story: Story): Promise<LoadedStory> {
  return target.call('sandboxLoadStory', {body: story}) as Promise<LoadedStory>
}

/** The map `--map` writes: each source id and its sandbox id. */
export function sourceToSandbox(refs: Map<string, string>, loaded: LoadedStory): Record<string, string> {
  const map: Record<string, string> = {}
  for (const [source, ref] of refs) {
    const id = loaded.ids[ref.slice(2, -4)]
    if (id !== undefined) map[source] = id
  }
  return map
}

/** The story as a fixture file: YAML, with what it does not hold named at the top. */
export async function storyFixture(ready: ReadyStory, from: string): Promise<string> {
  const {stringify} = await import('yaml')
  const header = [
    `# A customer's story, imported by payctl sandbox import from ${from}, redacted.`,
    '# `payctl seed FILE` loads it into a local sandbox under new ids, with its history and times.',
    '# Not in it:',
    ...[...NOT_RECREATED, ...ready.missing.map((m) => `${m.what}: ${m.reason}`)].map((l) => `#   - ${l}`),
  ]
  return `${header.join('\n')}\n${stringify(ready.story, {lineWidth: 0})}`
}

/** Whether a fixture file is a story (it has a `clock`), read without checking the rest. */
export async function isStoryFixture(path: string): Promise<boolean> {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch {
    return false
  }
  if (!/^clock:/m.test(text) && !/"clock"\s*:/.test(text)) return false
  const {parse} = await import('yaml')
  try {
    const doc = parse(text, {maxAliasCount: 0}) as unknown
    return doc !== null && typeof doc === 'object' && 'clock' in doc
  } catch {
    return false
  }
}

/** A story fixture read and checked as the sandbox will check it: every problem named by its path. */
export async function readStoryFixture(path: string): Promise<Story> {
  const {parse} = await import('yaml')
  let doc: unknown
  try {
    doc = parse(readFileSync(path, 'utf8'), {maxAliasCount: 0})
  } catch (err) {
    throw usageError(`${path}: ${(err as Error).message.split('\n')[0]}`, 'INVALID_FIXTURE')
  }
  const parsed = StorySchema.safeParse(doc)
  if (parsed.success) return parsed.data
  throw new PayctlError({
    kind: 'usage',
    code: 'INVALID_FIXTURE',
    message: `${path} is not a story payctl can load:\n${z.prettifyError(parsed.error)}`,
    details: {path},
  })
}

/**
 * Write the map of source ids to sandbox ids (`--map`): readable by its owner only, since it links
 * the sandbox's records to real customers.
 */
export function writeStoryMap(path: string, map: Record<string, string>): void {
  writeFileAtomically(path, `${JSON.stringify(map, null, 2)}\n`, 0o600, '--map')
}
