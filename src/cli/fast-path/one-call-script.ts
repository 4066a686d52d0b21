import {readFileSync, renameSync, rmSync, writeFileSync} from 'node:fs'
import {createRequire, getCompileCacheDir} from 'node:module'
import {basename, join} from 'node:path'
import {fileURLToPath} from 'node:url'
import type {FastRun, Handover} from './fast-table.js'

/**
 * The one-call path as the bundle ships it (dist/bundle/fast-call-HASH.cjs, fast-path.ts and what
 * it imports, built by scripts/bundle.ts), run with a V8 code cache of its own, kept after a run.
 *
 * Why: V8 compiles a function on its first call, and Node's compile cache keeps only what was
 * compiled with the file, before it ran: every one-call command compiled afresh the hundred-odd
 * functions it calls (reading the profile, the request, the printer, the card). A code cache made
 * once the run is done holds them too. It sits beside Node's compile cache (payctl's cache dir, or
 * NODE_COMPILE_CACHE; none where that is disabled), one for each command, named by the script (whose
 * name carries a hash of its content), the command, the Node version and the architecture. Its
 * first line lists the kinds of run it was made after (the command and its flags): a run of
 * another kind, which compiled functions the cache lacks, keeps a new one, which holds those of the
 * cache it started from too. V8 refuses a
 * cache made by another V8, with other flags or for another source, and a file that cannot be
 * read as one is ignored: the run compiles what it needs, as without a cache, and keeps a new one.
 */
export async function runOneCallScript(
  url: URL,
  run: FastRun,
  /** import() of an ES module, its name relative to the script's (fast.js's own, beside it). */
  esmImport: (specifier: string) => Promise<unknown>,
): Promise<Handover | undefined> {
  const file = fileURLToPath(url)
  const dir = getCompileCacheDir()
  // One for each command: a cache holds every function its runs compiled, and the more it holds
  // the longer V8 takes to read it (all nine commands' in one: 2% more instructions for each run).
  const command = run.command.id.replaceAll(':', '-')
  const cacheFile =
    dir === undefined
      ? undefined
      : join(dir, `${basename(file)}-${command}-${process.version}-${process.arch}.v8`)
  const kept = cacheFile === undefined ? undefined : readKept(cacheFile)
  // The CommonJS wrapper, on the script's first line, so that its lines keep their numbers.
  const source = `(function (exports, require, module, payctlScriptUrl, esmImp) {${readFileSync(file, 'utf8')}\n})`
  // Taken here, not imported: an import would load node:vm for help too.
  const {Script} = process.getBuiltinModule('node:vm')
  const script = new Script(source, {filename: file, cachedData: kept?.data})
  const module = {exports: {} as {runFastPath(run: FastRun): Promise<Handover | undefined>}}
  // Its import() of the bundle's chunks (a spinner's ora, yaml) and of builtins, renamed by the
  // build: a script of node:vm has no import() of its own.
  script.runInThisContext()(module.exports, createRequire(file), module, url.href, esmImport)
  const handover = await module.exports.runFastPath(run)
  // Kept after a run the fast path finished: one handed over stopped short of printing.
  if (cacheFile !== undefined && handover === undefined) {
    const kinds = kept === undefined || script.cachedDataRejected === true ? [] : kept.kinds
    const kind = kindOf(run)
    if (!kinds.includes(kind)) save(cacheFile, [...kinds, kind], script.createCachedData())
  }
  return handover
}

/** What a run compiles depends on: its command, and its flags but the profile's name. */
function kindOf(run: FastRun): string {
  const flags = Object.entries(run.flags)
    .filter(([name]) => name !== 'profile')
    .map(([name, value]) => (name === 'output' ? `--output=${value}` : `--${name}`))
  return [run.command.id, ...flags.sort()].join(' ')
}

/** The kept cache, its kinds (its first line, separated by tabs) and V8's data after it. */
function readKept(file: string): {kinds: string[]; data: Buffer} | undefined {
  let bytes: Buffer
  try {
    bytes = readFileSync(file)
  } catch {
    return undefined // none yet: this run keeps one
  }
  const newline = bytes.indexOf(10)
  if (newline <= 0 || newline === bytes.length - 1) return undefined
  return {kinds: bytes.toString('utf8', 0, newline).split('\t'), data: bytes.subarray(newline + 1)}
}

/** Write the cache whole or not at all: another process may be reading it, or writing its own. */
function save(file: string, kinds: readonly string[], data: Buffer): void {
  const temporary = `${file}.${process.pid}.tmp`
  try {
    writeFileSync(temporary, Buffer.concat([Buffer.from(`${kinds.join('\t')}\n`), data]), {mode: 0o600})
    renameSync(temporary, file)
  } catch {
    rmSync(temporary, {force: true})
  }
}
