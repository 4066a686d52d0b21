import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'
import {z} from 'zod'
import {
  investigate,
  type PayctlClient,
  PayctlError,
  type ResolvedProfile,
  TIMELINE_KINDS,
  type TimelineLine,
} from '../core/index.js'
import {loadFixtures, seed} from '../core/seed/index.js'
import {answer, failure, refusal} from './results.js'
import type {Tool} from './tool.js'

/**
 * The jobs a person does with several calls, each one tool: a user's whole story (what `payctl
 * users inspect` reads), and the records a fixture declares (what `payctl seed` creates).
 */

/** A bound of the timeline's window, as `users inspect` takes it. */
const Bound = z
  .string()
  .regex(
    /^(\d{1,6}[smhdw]|\d{4}-\d{2}-\d{2}T\S+)$/,
    'a duration back from now (24h, 7d) or an ISO 8601 instant',
  )

const InspectUserInput = z.strictObject({
  user: z.string().min(1).describe('the user id (usr_…), or the email of one user'),
  wallet: z.string().min(1).optional().describe("only this one of the user's wallets (wal_…)"),
  since: Bound.optional().describe(
    'start of the window: a duration back from now (24h, 7d) or an instant; default 30d',
  ),
  until: Bound.optional().describe('end of the window, as since; default now'),
  kinds: z.array(z.enum(TIMELINE_KINDS)).optional().describe('only lines of these kinds'),
  events: z
    .boolean()
    .optional()
    .describe(
      'the webhook events as lines of their own; without it, each line of money says how the webhooks about it fared (`webhook`, `events`)',
    ),
  limit: z
    .number()
    .int()
    .min(1)
    .max(1000)
    .default(100)
    .describe('the newest lines to return, at most; `truncated` says when there were more'),
})

function inspectUserTool(client: PayctlClient, profile: ResolvedProfile): Tool {
  return {
    name: 'inspect_user',
    title: "a user's whole story",
    description:
      "A user's whole story, as `payctl users inspect` reads it: who they are, their wallets and balances, their BNPL payments, and a timeline newest first merged from the wallets' ledger entries, their transactions and the events about them (each line of money with how its webhooks fared). `missing` names what the service does not offer.",
    input: InspectUserInput,
    mutates: false,
    localOnly: false,
    annotations: {readOnlyHint: true},
    async run(args) {
      const a = args as z.output<typeof InspectUserInput>
      try {
        const inv = await investigate(client, {
          subject: {user: a.user},
          wallet: a.wallet,
          since: a.since,
          until: a.until,
          kinds: a.kinds,
          events: a.events,
          sandbox: profile.kind === 'local',
        })
        const timeline: TimelineLine[] = []
        let truncated = false
        for await (const line of inv.lines) {
          if (timeline.length === a.limit) {
            truncated = true
            break
          }
          timeline.push(line)
        }
        const {lines: _, ...rest} = inv
        return answer({...rest, bnplPayments: inv.bnplPayments ?? null, timeline, truncated})
      } catch (err) {
        return failure(err)
      }
    },
  }
}

const SeedInput = z.strictObject({
  document: z
    .string()
    .min(1)
    .optional()
    .describe('the fixture itself, YAML or JSON (the format of docs/seed.md); or give path'),
  path: z
    .string()
    .regex(/\.(ya?ml|json)$/i, 'a fixture file ends in .yaml, .yml or .json')
    .optional()
    .describe('a fixture file on the machine the server runs on; or give document'),
})

/** Records sent at once: a quarter of `payctl seed`'s default, for a service others use meanwhile. */
const SEED_CONCURRENCY = 2

/**
 * A fixture given as text is read from a file of its own, as `payctl seed` reads one, named so that
 * a fixture without a `name` gets the same idempotency keys each time it is seeded.
 */
async function fixtureOf(args: z.output<typeof SeedInput>) {
  if (args.path !== undefined) return loadFixtures([resolve(args.path)], {})
  const dir = mkdtempSync(join(tmpdir(), 'payctl-mcp-'))
  try {
    const file = join(dir, 'fixture.yaml')
    writeFileSync(file, args.document ?? '', {mode: 0o600})
    return await loadFixtures([file], {}).catch((err: unknown) => {
      // Its problems are placed in the document, not in a file the agent never saw.
      if (!(err instanceof PayctlError)) throw err
      throw new PayctlError({
        kind: err.kind,
        code: err.code,
        message: err.message.replaceAll(file, 'document'),
      })
    })
  } finally {
    rmSync(dir, {recursive: true, force: true})
  }
}

function seedTool(client: PayctlClient): Tool {
  return {
    name: 'seed_fixture',
    title: 'create the records a fixture declares',
    description:
      "Create the users, wallets, transactions and more that a fixture declares, as `payctl seed` does (docs/seed.md): records refer to each other by name (${wallets.alice_usd.id}), and each is sent with an idempotency key derived from the fixture and its content, so seeding the same fixture again creates nothing twice. Every problem of the fixture is reported with its line and column before anything is sent. ${env.NAME} reads nothing of the server's environment: give ${env.NAME:-default}. Answers the created ids by kind and name.",
    input: SeedInput,
    mutates: true,
    localOnly: false,
    annotations: {readOnlyHint: false, destructiveHint: false, idempotentHint: true},
    async run(args) {
      const a = args as z.output<typeof SeedInput>
      if ((a.document === undefined) === (a.path === undefined))
        return refusal(
          'VALIDATION_ERROR',
          'give either document (the fixture itself) or path (a fixture file), not both',
        )
      try {
        // The server's environment is not the agent's to read: it may hold credentials.
        const [fixture] = await fixtureOf(a)
        const created = await seed(client, fixture!, {concurrency: SEED_CONCURRENCY})
        return answer({fixture: fixture!.name, records: fixture!.records.length, created})
      } catch (err) {
        return failure(err)
      }
    },
  }
}

/** The tools of several calls each. */
export function jobTools(client: PayctlClient, profile: ResolvedProfile): Tool[] {
  return [inspectUserTool(client, profile), seedTool(client)]
}
