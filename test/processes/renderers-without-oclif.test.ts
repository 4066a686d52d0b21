import {execFileSync} from 'node:child_process'
import {join} from 'node:path'
import {pathToFileURL} from 'node:url'
import {describe, expect, it} from 'vitest'
import {ROOT} from '../helpers/cli.js'

/**
 * The renderers (cards, tables, amounts, lists, errors) and the streams they print to load without
 * oclif, so that a path that never starts oclif can print what commands print.
 */
const RENDERERS = [
  'command-errors',
  'fast-path/fast-path',
  'fast-path/fast-start',
  'fast-path/help-cache',
  'fast-path/one-call',
  'rendering/field-readers',
  'rendering/fit',
  'rendering/list-output',
  'rendering/output',
  'rendering/printer',
  'rendering/terminal',
  'runtime/io',
  'runtime/prompter',
  'runtime/questions',
  'runtime/runtime',
  'views/bnpl-views',
  'views/inspect-output',
  'views/inspect-views',
  'views/resource-views',
  'views/roundups-views',
  'views/webhooks-views',
]

describe('renderers', () => {
  it('load without oclif', () => {
    // A process of its own, which records every module its imports resolve (the build's dist/cli).
    const script = `
      const {registerHooks} = require('node:module')
      const seen = []
      registerHooks({resolve: (specifier, context, next) => { seen.push(specifier); return next(specifier, context) }})
      Promise.all(${JSON.stringify(RENDERERS.map((r) => pathToFileURL(join(ROOT, 'dist', 'cli', `${r}.js`)).href))}.map((u) => import(u)))
        .then(() => process.stdout.write(JSON.stringify(seen)))`
    const seen = JSON.parse(execFileSync(process.execPath, ['-e', script], {encoding: 'utf8'})) as string[]
    expect(seen.length).toBeGreaterThan(RENDERERS.length)
    expect(seen.filter((s) => s.startsWith('@oclif/'))).toEqual([])
  })
})
