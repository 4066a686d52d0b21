import {describe, expect, it} from 'vitest'
import {cliFor, tempConfigDir} from '../helpers/cli.js'

/** `payctl --help`, the first screen a newcomer reads. */

/** The names a section of the root help lists (`TOPICS`, `COMMANDS`), first word of each entry. */
function listed(help: string, section: string): string[] {
  const body = help.split(`\n${section}\n`)[1]?.split(/\n\S/)[0] ?? ''
  return [...body.matchAll(/^ {2}(\S+)/gm)].map((m) => m[1]!)
}

describe('the root help', () => {
  it('lists each name once: a command that has subcommands (seed) as a command, not a topic too', async () => {
    const temp = tempConfigDir()
    try {
      const cli = cliFor(temp.dir)
      const root = await cli('--help')
      expect(root.exitCode, root.stderr).toBe(0)
      const topics = listed(root.stdout, 'TOPICS')
      const commands = listed(root.stdout, 'COMMANDS')
      expect(topics).toContain('wallets')
      expect(commands).toContain('seed')
      expect([...topics, ...commands].filter((name, i, all) => all.indexOf(name) !== i)).toEqual([])
      // Its subcommand is still found from it.
      const seed = await cli('seed', '--help')
      expect(seed.stdout).toContain('seed export')
    } finally {
      temp.cleanup()
    }
  })
})
