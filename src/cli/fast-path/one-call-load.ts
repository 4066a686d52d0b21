import type {FastRun, Handover} from './fast-table.js'

/**
 * Run a one-call command on the fast path (fast-path.ts), loaded only then. This is how it runs
 * from src/; fast.js holds another version of this module (scripts/bundle.ts, oneCallScript),
 * which runs the bundle's own script of the one-call path with a V8 code cache kept after a run
 * (one-call-script.ts).
 */
export async function runOneCall(run: FastRun): Promise<Handover | undefined> {
  const {runFastPath} = await import('./fast-path.js')
  return runFastPath(run)
}
