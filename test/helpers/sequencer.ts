import type {TestSpecification} from 'vitest/node'
import {BaseSequencer} from 'vitest/node'

/** The tiers whose files take longest first: they would otherwise be the last to end. */
const FIRST = ['soak', 'processes', 'browser', 'service', 'commands', 'unit']

/** A file's tier: the folder of test/ it is in. */
const tierOf = (spec: TestSpecification) => /\/test\/([^/]+)\//.exec(spec.moduleId)?.[1] ?? ''

/**
 * The order test files start in: by tier, the long-running ones first (a seeded soak run, a file of
 * processes), then within a tier as vitest orders them (by the time each took last, or its size on
 * a clean clone), so that the run does not end waiting on one long file started last.
 */
export default class TierSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (spec: TestSpecification) => {
      const i = FIRST.indexOf(tierOf(spec))
      return i < 0 ? FIRST.length : i
    }
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b))
  }
}
