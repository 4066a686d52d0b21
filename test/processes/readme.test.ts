import {execFileSync} from 'node:child_process'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {ROOT} from '../helpers/cli.js'

// Markers at the start of a line: the tool's own log line ("replacing <!-- commands --> in …") is not one.
const between = (text: string) =>
  text.slice(text.indexOf('\n<!-- commands -->'), text.indexOf('\n<!-- commandsstop -->'))

/** `npm run readme`, as package.json has it: the oclif tool and its arguments. */
const script = (
  JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {scripts: Record<string, string>}
).scripts.readme!.split(' ')

/**
 * The command reference, docs/commands.md, is generated from the build's commands (the README and
 * the rest of docs/: test/unit/readme.test.ts and test/unit/docs.test.ts).
 */
describe('the command reference', () => {
  it('is written by npm run readme into docs/commands.md', () => {
    expect(script.slice(0, 2)).toEqual(['oclif', 'readme'])
    expect(script[script.indexOf('--readme-path') + 1]).toBe('docs/commands.md')
  })

  it('is what the oclif tool generates from the commands', () => {
    const generated = execFileSync(
      process.execPath,
      [join(ROOT, 'node_modules/oclif/bin/run.js'), ...script.slice(1), '--dry-run'],
      {cwd: ROOT, encoding: 'utf8', env: {...process.env, NO_COLOR: '1'}},
    )
    const committed = readFileSync(join(ROOT, 'docs/commands.md'), 'utf8')
    expect(between(generated)).toContain('payctl wallets create')
    expect(between(committed)).toBe(between(generated))
  })
})
