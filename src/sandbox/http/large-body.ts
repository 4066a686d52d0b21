import {setFlagsFromString} from 'node:v8'

/** A body this long (a story of thousands of records) is read as a large one: see readLargeBody. */
export const LARGE_BODY_CHARS = 1024 * 1024

/** Large bodies parsed whose request has not yet run. */
let holding = 0

/**
 * Keep V8's young generation at the size it has while a large body is parsed and its request runs.
 * Most of what that allocates survives (the document's objects), and V8 answers survivors by
 * doubling the young generation: 32 MB more for the rest of the process, for a request that comes
 * once. Held, the survivors go to the old generation, where they are collected as garbage once the
 * request is done. Tuning only: nothing depends on it, and ordinary requests run with V8's default.
 * Answers the function that lets go, once.
 */
export function holdYoungGeneration(): () => void {
  if (holding++ === 0) setFlagsFromString('--semi-space-growth-factor=1')
  let held = true
  return () => {
    if (!held) return
    held = false
    // V8's default (node --v8-options).
    if (--holding === 0) setFlagsFromString('--semi-space-growth-factor=2')
  }
}
