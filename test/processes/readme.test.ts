import {execFileSync} from 'node:child_process'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {ROOT} from '../helpers/cli.js'

// Markers at the start of a line: the tool's own log line ("replacing <!-- commands --> in …") is not one.
const between = (text: string) =>
  text.slice(text.indexOf('\n<!-- commands -->'), text.indexOf('\n<!-- commandsstop -->'))

/** The command reference is generated from the build's commands (the rest of the README: test/unit/readme.test.ts). */
describe('README', () => {
  it('has the command reference the oclif tool generates from the commands (npm run readme)', () => {
    const generated = execFileSync(
      process.execPath,
      [
        join(ROOT, 'node_modules/oclif/bin/run.js'),
        'readme',
        '--no-source-links',
        '--no-aliases',
        '--dry-run',
      ],
      {cwd: ROOT, encoding: 'utf8', env: {...process.env, NO_COLOR: '1'}},
    )
    const committed = readFileSync(join(ROOT, 'README.md'), 'utf8')
    expect(between(committed)).toBe(between(generated))
    expect(between(committed)).toContain('payctl wallets create')
  })
})
