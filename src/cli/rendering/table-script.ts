import {readFileSync, renameSync, rmSync, writeFileSync} from 'node:fs'
import {createRequire, getCompileCacheDir} from 'node:module'
import {basename, join} from 'node:path'
import {fileURLToPath} from 'node:url'
import type {LoadedTables} from './table-load.js'

/**
 * cli-table3 as the bundle ships it (dist/bundle/chunks/cli-table3-HASH.cjs, built by
 * scripts/bundle-table.ts), run with a V8 code cache of its own, kept once a table is laid out.
 *
 * Why: V8 compiles a function on its first call, and Node's compile cache keeps only what was
 * compiled with the file, so every process compiled cli-table3's layout code again on its first
 * table (about half of that table's time). A code cache made after a table was laid out holds
 * those functions too. It sits beside Node's compile cache of the bundle (payctl's cache dir, or
 * NODE_COMPILE_CACHE; none where that is disabled), named by the script (whose name carries a hash
 * of its content), the Node version and the architecture; V8 refuses a cache made by another V8 or
 * with other flags, and the next table then keeps a new one. A cache that cannot be read or
 * written changes nothing but the time.
 */
export function loadTableScript(url: URL): LoadedTables {
  const file = fileURLToPath(url)
  const dir = getCompileCacheDir()
  const cacheFile =
    dir === undefined ? undefined : join(dir, `${basename(file)}-${process.version}-${process.arch}.v8`)
  let cachedData: Buffer | undefined
  try {
    if (cacheFile !== undefined) cachedData = readFileSync(cacheFile)
  } catch {
    // none yet: the first table keeps one
  }
  // The CommonJS wrapper, on the script's first line, so that its lines keep their numbers.
  const source = `(function (exports, require, module) {${readFileSync(file, 'utf8')}\n})`
  // Taken here, not imported: an import would load node:vm with the fast path, table or not.
  const {Script} = process.getBuiltinModule('node:vm')
  const script = new Script(source, {filename: file, cachedData})
  const module = {exports: {} as LoadedTables['Table']}
  script.runInThisContext()(module.exports, createRequire(file), module)
  const keep = cacheFile !== undefined && (cachedData === undefined || script.cachedDataRejected === true)
  return {Table: module.exports, laidOut: keep ? () => save(cacheFile, script.createCachedData()) : undefined}
}

/** Write the cache whole or not at all: another process may be reading it, or writing its own. */
function save(file: string, data: Buffer): void {
  const temporary = `${file}.${process.pid}.tmp`
  try {
    writeFileSync(temporary, data, {mode: 0o600})
    renameSync(temporary, file)
  } catch {
    rmSync(temporary, {force: true})
  }
}
