import type {FastifyInstance} from 'fastify'
import type {Due} from './clock.js'
import type {RouteSpec, ServingContext} from './context.js'
import type {AnswerHooks} from './http/answers.js'
import type {OwnerKind} from './money/owners.js'
import type {Schema} from './storage/database.js'

/** What a feature adds to a running sandbox. */
export interface Served {
  /** Its routes, one for each endpoint of its contract file. */
  routes: RouteSpec[]
  /** Its work that falls due on a partner's clock; returns how many records it finished. */
  due?: Due
  /** What it adds to the server besides routes (the webhook listener's socket and scheduler). */
  attach?: (app: FastifyInstance) => void
  /** What it does with every answer the server gives, as it is sent and once it is. */
  answers?: AnswerHooks
}

/**
 * A feature, described once: its tables (with how each row is tied to its partner, and their
 * migrations) and how it is served, from the parts of the context it uses. The server, the schema
 * set-up, reset and the clock's due work all loop over the list of them (features.ts).
 */
export interface Feature extends Schema {
  /** The kinds of owner it sets on the transactions it moves through the kernel. */
  owners?: readonly OwnerKind[]
  serve(context: ServingContext): Served
}
