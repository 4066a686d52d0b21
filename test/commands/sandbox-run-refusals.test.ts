import {afterAll, describe, expect, it} from 'vitest'
import {cliFor, tempConfigDir} from '../helpers/cli.js'

/**
 * What `sandbox run` refuses, and a command it cannot start: answered the same in this process as
 * by a payctl of its own (what only a process shows, its signals, pipes and the dirs a killed one
 * leaves, is in test/processes/sandbox-run.test.ts).
 */
describe('sandbox run: what it cannot run', () => {
  const config = tempConfigDir()
  const cli = cliFor(config.dir, {timeoutMs: 30_000})
  afterAll(() => config.cleanup())

  it('no command, or a snapshot nobody saved: exit 2 naming what is missing, nothing started', async () => {
    const none = await cli('sandbox', 'run')
    expect(none.exitCode).toBe(2)
    expect(none.stderr).toContain('MISSING_COMMAND')
    const empty = await cli('sandbox', 'run', '--')
    expect(empty.exitCode).toBe(2)
    const missing = await cli('sandbox', 'run', '--from-snapshot', 'never-saved', '--', 'true')
    expect(missing.exitCode).toBe(2)
    expect(missing.stderr).toContain('SNAPSHOT_NOT_FOUND')
    expect(missing.stderr).toContain('payctl sandbox snapshot list')
  })

  it('a command that does not exist: exit 127, naming it', async () => {
    const missing = await cli('sandbox', 'run', '--', 'no-such-command-anywhere')
    expect(missing.exitCode).toBe(127)
    expect(missing.stderr).toContain('no-such-command-anywhere')
  })
})
