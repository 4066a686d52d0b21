import type {CallToolResult, ToolAnnotations} from '@modelcontextprotocol/sdk/types.js'
import type {z} from 'zod'

/** One tool of the server: what an agent sees of it, what offering it takes, and what it does. */
export interface Tool {
  /** snake_case, verb first where the operation reads so (`get_user`, `create_wallet`). */
  name: string
  title: string
  description: string
  /** Its arguments, flat; listed as JSON Schema and checked before `run` is called. */
  input: z.ZodObject
  /** It changes something: not offered against production without the explicit flag. */
  mutates: boolean
  /** It drives the local sandbox itself (its reset, clock, faults, snapshots): offered only there. */
  localOnly: boolean
  annotations: ToolAnnotations
  /** Never throws: a failure is a result with `isError`. */
  run(args: Record<string, unknown>): Promise<CallToolResult>
}
