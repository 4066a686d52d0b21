import {createHash} from 'node:crypto'
import fs, {existsSync, writeFileSync} from 'node:fs'
import {basename, join, resolve} from 'node:path'
import type {PayctlClient} from '../client.js'
import {privateSubdir, writePrivateFile} from '../config-dir.js'
import type {EnvironmentKind} from '../environments.js'
import {usageError} from '../errors.js'
import {stringifyExact} from '../exact-json.js'
import {credentialFingerprint, type ResolvedProfile} from '../profile-file.js'
import type {TokenBucket} from '../rate-limiter.js'
import type {Fixture} from './fixture.js'
import {Journal} from './journal.js'
import {type SeedProgress, type SeedResult, seed} from './runner.js'

/**
 * A seed run of fixture files: which files the arguments name, the names they may not share, the
 * journal each keeps, the pace of the run and the ids of all of them as one result.
 */

// The spec's Limits table, requests a minute.
const RATE_BY_KIND = {local: 100, sandbox: 100, production: 1000}

/** The fixture files named: each argument, or the files a quoted glob matches, in order. */
export function fixturePaths(args: string[]): string[] {
  const paths: string[] = []
  for (const arg of args) {
    if (/[*?[]/.test(arg) && !existsSync(arg)) {
      // fs.globSync, not a named import: Node 20 has none, and a named import would fail the
      // whole library's import there (payctl/testing's check of the Node names what it needs).
      const matches = fs.globSync(arg).sort()
      if (matches.length === 0)
        throw usageError(`no fixture file matches ${arg}`, 'MISSING_FILE', {file: arg})
      paths.push(...matches.map((m) => resolve(m)))
    } else paths.push(resolve(arg))
  }
  return [...new Set(paths)]
}

/** Several fixtures print their ids in one document: a name may be used by one of them only. */
export function refuseSharedNames(paths: string[], fixtures: Fixture[]): void {
  const owner = new Map<string, string>()
  for (const [i, fixture] of fixtures.entries()) {
    for (const r of fixture.records) {
      const name = `${r.kind}.${r.name.replace(/\[\d+\]$/, '')}`
      const other = owner.get(name)
      if (other !== undefined && other !== paths[i]) {
        throw usageError(
          `${name} is named in both ${basename(other)} and ${basename(paths[i]!)}; names must differ between fixtures seeded together, since their ids are printed in one document`,
          'INVALID_FIXTURE',
        )
      }
      owner.set(name, paths[i]!)
    }
  }
}

/**
 * Requests a minute to pace to, or undefined for no pacing: `rate` as given ("off": none), else the
 * environment's limit, or none for a local sandbox that enforces none.
 */
export async function seedRate(
  client: PayctlClient,
  kind: EnvironmentKind,
  rate: number | 'off' | undefined,
): Promise<number | undefined> {
  if (rate === 'off') return undefined
  if (rate !== undefined) return rate
  if (kind === 'local') {
    const health = await client.call('sandboxHealth').catch(() => undefined)
    if (health?.rateLimit === 'off') return undefined
  }
  return RATE_BY_KIND[kind]
}

/**
 * Which start of a local sandbox this is ('' for any other service). A local sandbox started afresh
 * (a new :memory: one on the same port, say) holds none of the records an earlier sandbox's journal
 * lists: each start of it has journals of its own. A restarted file-backed sandbox answers the
 * records again for their idempotency keys.
 */
export async function sandboxInstance(client: PayctlClient, kind: EnvironmentKind): Promise<string> {
  if (kind !== 'local') return ''
  return (await client.call('sandboxHealth').catch(() => undefined))?.startedAt ?? ''
}

/**
 * The default journal of a fixture file: one per file, profile, service, sandbox `instance` and
 * credentials (partners side by side on one sandbox, or CI jobs with only `PAYCTL_*` variables,
 * share a profile name but never a journal).
 */
export function journalPath(
  configDir: string,
  fixturePath: string,
  profile: Pick<ResolvedProfile, 'auth' | 'baseUrl' | 'name'>,
  instance: string,
): string {
  const {auth, baseUrl, name} = profile
  const who = auth === undefined ? '' : credentialFingerprint(auth, baseUrl)
  const id = createHash('sha256')
    .update(`${fixturePath}|${name}|${baseUrl}|${instance}|${who}`)
    .digest('hex')
    .slice(0, 24)
  return join(privateSubdir(configDir, 'seed'), `${id}.ndjson`)
}

/** What shows a file's run going: told of each step, and stopped when the file is done. */
export interface FileProgress {
  update: (p: SeedProgress) => void
  stop: () => void
}

export interface SeedFilesOptions {
  concurrency: number
  limiter?: TokenBucket | undefined
  /** The journal file of each fixture file. */
  journal: (path: string) => string
  /** Forget what earlier runs' journals list (for a sandbox that was reset). */
  fresh?: boolean | undefined
  /** The progress of each file's run, started as the file's run starts. */
  progress?: ((path: string) => FileProgress) | undefined
}

/**
 * Seed the fixtures (read from `paths`, in order) one after another, each with its journal; their
 * ids as one result, with how many records were made and how many earlier runs had made.
 */
export async function seedFiles(
  client: PayctlClient,
  paths: string[],
  fixtures: Fixture[],
  opts: SeedFilesOptions,
): Promise<{result: SeedResult; made: number; skipped: number}> {
  const result: SeedResult = {}
  let made = 0
  let skipped = 0
  for (const [i, fixture] of fixtures.entries()) {
    const path = paths[i]!
    const journal = new Journal(opts.journal(path))
    if (opts.fresh) journal.clear()
    const progress = opts.progress?.(path)
    let last: SeedProgress | undefined
    const one = await seed(client, fixture, {
      concurrency: opts.concurrency,
      limiter: opts.limiter,
      journal,
      onProgress: (p) => {
        last = p
        progress?.update(p)
      },
    })
      .catch((err: unknown) => {
        // Which file, when there are several.
        if (paths.length > 1 && err instanceof Error) err.message = `${basename(path)}: ${err.message}`
        throw err
      })
      .finally(() => progress?.stop())
    for (const [kind, names] of Object.entries(one)) result[kind] = {...result[kind], ...names}
    made += (last?.done ?? 0) - (last?.skipped ?? 0)
    skipped += last?.skipped ?? 0
  }
  return {result, made, skipped}
}

/**
 * Write the ids of a run to `path`, as the JSON document the run returns. One that holds a webhook
 * registration's signing secret is written as the config dir's files are: 0600, never through a
 * link planted there.
 */
export function writeSeedIds(path: string, result: SeedResult): void {
  const text = `${stringifyExact(result, 2)}\n`
  if (registrations(result).some((r) => r.secret !== undefined)) writePrivateFile(path, text)
  else writeFileSync(path, text)
}

/** The webhook registrations of a run's result, by their fixture names (`webhooks.orders`, `webhooks.hook[0]`). */
export function registrations(result: SeedResult): {name: string; id: string; secret?: string}[] {
  return Object.entries(result.webhooks ?? {}).flatMap(([name, ids]) =>
    Array.isArray(ids)
      ? ids.map((r, i) => ({...r, name: `webhooks.${name}[${i}]`}))
      : [{...ids, name: `webhooks.${name}`}],
  )
}
