import type * as Sqlite from 'node:sqlite'

/**
 * node:sqlite, the one way the sandbox reaches it: taken with process.getBuiltinModule() rather than
 * imported, because Node resolves every `import` of a module graph before it runs any of it, and an
 * older Node (without node:sqlite, or without getBuiltinModule) would then refuse `payctl/sandbox`
 * with ERR_UNKNOWN_BUILTIN_MODULE and a stack, naming nothing a user can act on. Loaded first by
 * index.ts, this fails instead with one line that says which Node the sandbox needs. The CLI never
 * meets it: bin/run.js hands every command to the Node 24 payctl depends on.
 */

/** The Node the sandbox needs: node:sqlite, and what else the sandbox uses of Node 24. */
export const SANDBOX_NODE_MAJOR = 24

/** Why the sandbox cannot run on this Node, in one line; undefined when it can. */
export function sandboxNodeProblem(
  version: string = process.version,
  hasSqlite: boolean = process.getBuiltinModule?.('node:sqlite') !== undefined,
): string | undefined {
  const major = Number(/^v?(\d+)\./.exec(version)?.[1])
  if (major >= SANDBOX_NODE_MAJOR && hasSqlite) return undefined
  return `payctl/sandbox needs Node ${SANDBOX_NODE_MAJOR} or later (node:sqlite); this is Node ${version}. Run it on Node ${SANDBOX_NODE_MAJOR}, or start the sandbox with the payctl command (payctl sandbox start), which brings its own.`
}

function load(): typeof Sqlite {
  const problem = sandboxNodeProblem()
  if (problem !== undefined) throw new Error(problem)
  return process.getBuiltinModule('node:sqlite')
}

const sqlite = load()

export const DatabaseSync = sqlite.DatabaseSync
export type DatabaseSync = Sqlite.DatabaseSync
