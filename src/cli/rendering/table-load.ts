import type CliTable3 from 'cli-table3'

/** cli-table3, and what to call once its first table is laid out (the bundle keeps a code cache then). */
export interface LoadedTables {
  Table: typeof CliTable3
  laidOut?: (() => void) | undefined
}

/**
 * Load cli-table3: here from node_modules (tests and the tsc build). The bundle builds this module
 * otherwise (scripts/bundle-table.ts): it loads the bundle's own cli-table3 script, with its code
 * cache (table-script.ts), so the full CLI and the fast path lay tables out with the same code.
 */
export async function loadCliTable3(): Promise<LoadedTables> {
  return {Table: (await import('cli-table3')).default}
}
