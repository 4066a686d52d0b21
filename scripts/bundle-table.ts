/**
 * What scripts/bundle.ts changes in the bundle's cli-table3 (the package's own code is left as it
 * is):
 *
 * - Its `string-width` answers plain text itself (src/cli/plain-width.ts) and loads the real
 *   string-width, the very module cli-table3 would have loaded, only for other text: on a
 *   process's first table, compiling string-width's emoji expression cost more than the layout.
 * - `@colors/colors`, which cli-table3 requires only to colour borders and headers by its `style`
 *   option (payctl's tables give it none: their colours come from paint()), stays out of the
 *   bundle: it is loaded from node_modules, as cli-table3 itself would, should anything ask.
 *
 * The build fails when either no longer applies (an upgrade of cli-table3), or when the plain
 * answers differ from the real string-width on a sample (test/cli/plain-width.test.ts compares
 * many more).
 */

import {createRequire} from 'node:module'
import {dirname, join} from 'node:path'
import type {Plugin} from 'esbuild'
import {plainWidth} from '../src/cli/plain-width.ts'

const FROM_CLI_TABLE3 = /node_modules\/cli-table3\//

/** The plugin, and a check to call after the build that it applied. */
export function cliTable3Changes(root: string): {plugin: Plugin; checkApplied: () => void} {
  const applied = new Set<string>()
  const plugin: Plugin = {
    name: 'cli-table3-changes',
    setup(b) {
      b.onResolve({filter: /^string-width$/}, async (args) => {
        if (!FROM_CLI_TABLE3.test(args.importer) || args.pluginData === 'real') return undefined
        const real = await b.resolve(args.path, {
          kind: args.kind,
          resolveDir: args.resolveDir,
          pluginData: 'real',
        })
        if (real.errors.length > 0) throw new Error(`cli-table3's string-width: ${real.errors[0]!.text}`)
        checkPlainWidth(real.path)
        applied.add('string-width')
        // Named by the package, not the path: the name stays in the bundle.
        return {path: 'string-width', namespace: 'payctl-table-width', pluginData: real.path}
      })
      b.onLoad({filter: /.*/, namespace: 'payctl-table-width'}, (args) => {
        const real = args.pluginData as string
        return {
          contents: [
            `const {plainWidth} = require(${JSON.stringify(join(root, 'src', 'cli', 'plain-width.ts'))})`,
            'let real',
            `module.exports = (text) => plainWidth(text) ?? (real ??= require(${JSON.stringify(real)}))(text)`,
          ].join('\n'),
          resolveDir: dirname(real),
          loader: 'js',
        }
      })
      b.onResolve({filter: /^@colors\/colors\/safe$/}, (args) => {
        if (!FROM_CLI_TABLE3.test(args.importer)) return undefined
        applied.add('@colors/colors')
        return {path: args.path, external: true}
      })
    },
  }
  const checkApplied = () => {
    for (const name of ['string-width', '@colors/colors'])
      if (!applied.has(name))
        throw new Error(`cli-table3 no longer requires ${name}: review scripts/bundle-table.ts`)
  }
  return {plugin, checkApplied}
}

/** Fail the build where plainWidth answers otherwise than the string-width at `path`. */
function checkPlainWidth(path: string): void {
  const real = createRequire(import.meta.url)(path) as (text: string) => number
  const samples = [
    '',
    'wal_1a3e8009f003061d37dd3eba',
    '1,023.98 USD',
    '…',
    'a…b',
    '\u001b[1mWALLET\u001b[22m',
    '\u001b[38;5;196mred\u001b[39m',
    '\u001b[m',
    '#1 *2 ~',
  ]
  for (const text of samples) {
    const plain = plainWidth(text)
    if (plain === undefined || plain !== real(text))
      throw new Error(
        `plainWidth(${JSON.stringify(text)}) is ${plain}, string-width says ${real(text)}: review src/cli/plain-width.ts`,
      )
  }
}
