/**
 * cli-table3 in the bundle: its own script, `chunks/cli-table3-HASH.cjs` (CommonJS, HASH from its
 * content), which src/cli/rendering/table-script.ts runs with a V8 code cache of its own, kept once a table
 * is laid out (Node's compile cache keeps only what is compiled with a file, and cli-table3's
 * layout code is compiled on its first call). The bundle's src/cli/rendering/table-load.ts is built to load
 * it, so the full CLI and the fast path lay tables out with the same code. In that script,
 * cli-table3's own code is left as it is, but:
 *
 * - its `string-width` answers plain text itself (src/cli/rendering/plain-width.ts) and loads the real
 *   string-width, the very module cli-table3 would have loaded, only for other text: on a
 *   process's first table, compiling string-width's emoji expression cost more than the layout;
 * - `@colors/colors`, which cli-table3 requires only to colour borders and headers by its `style`
 *   option (payctl's tables give it none: their colours come from paint()), stays out: it is
 *   loaded from node_modules, as cli-table3 itself would, should anything ask.
 *
 * The build fails when any of this no longer applies (an upgrade of cli-table3), or when the plain
 * answers differ from the real string-width on a sample (test/processes/plain-width.test.ts compares
 * many more).
 */

import {createHash} from 'node:crypto'
import {writeFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import {dirname, join, relative} from 'node:path'
import {build, type Metafile, type Plugin} from 'esbuild'
import {plainWidth} from '../src/cli/rendering/plain-width.ts'

const FROM_CLI_TABLE3 = /node_modules\/cli-table3\//

/** The table script's file name and text, and a plugin for the builds (main, fast.js) that load it. */
export async function cliTable3Script(root: string): Promise<{
  name: string
  plugin: Plugin
  write: (outDir: string, metafile: Metafile) => void
}> {
  const applied = new Set<string>()
  const result = await build({
    absWorkingDir: root,
    stdin: {contents: "module.exports = require('cli-table3')", resolveDir: root, sourcefile: 'cli-table3'},
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node24',
    write: false,
    outfile: join(root, 'cli-table3.cjs'),
    logLevel: 'warning',
    plugins: [cliTable3Changes(root, applied)],
  })
  for (const name of ['string-width', '@colors/colors'])
    if (!applied.has(name))
      throw new Error(`cli-table3 no longer requires ${name}: review scripts/bundle-table.ts`)
  const text = result.outputFiles[0]!.text
  const name = `cli-table3-${createHash('sha256').update(text).digest('hex').slice(0, 12).toUpperCase()}.cjs`
  const tableLoad = join(root, 'src', 'cli', 'rendering', 'table-load.ts')
  let substituted = false
  const plugin: Plugin = {
    name: 'table-load',
    setup(b) {
      b.onLoad({filter: /\/src\/cli\/rendering\/table-load\.ts$/}, (args) => {
        if (args.path !== tableLoad) return undefined
        substituted = true
        return {
          contents: [
            "import {loadTableScript} from './table-script.ts'",
            "export type {LoadedTables} from './table-load.ts'",
            // From a chunk (the main build's), or from a file of the bundle's own folder (fast.js).
            `const dir = /\\/chunks\\/[^/]*$/.test(import.meta.url) ? './' : './chunks/'`,
            `export async function loadCliTable3() { return loadTableScript(new URL(dir + ${JSON.stringify(name)}, import.meta.url)) }`,
          ].join('\n'),
          resolveDir: dirname(args.path),
          loader: 'ts',
        }
      })
    },
  }
  const write = (outDir: string, metafile: Metafile) => {
    if (!substituted)
      throw new Error('the bundle has no src/cli/rendering/table-load.ts: review scripts/bundle-table.ts')
    // The script's address is relative to the output that holds the loader: it must be a chunk,
    // or a file of the bundle's own folder.
    const holder = Object.keys(metafile.outputs).filter((o) =>
      Object.keys(metafile.outputs[o]!.inputs).some((i) => i.endsWith('src/cli/rendering/table-load.ts')),
    )
    const dirs = [relative(root, outDir), relative(root, join(outDir, 'chunks'))]
    if (holder.length !== 1 || !dirs.includes(dirname(holder[0]!)))
      throw new Error(
        `src/cli/rendering/table-load.ts is in ${holder.join(', ')}, not one file of ${dirs.join(' or ')}`,
      )
    writeFileSync(join(outDir, 'chunks', name), text)
  }
  return {name, plugin, write}
}

/** cli-table3's string-width and @colors/colors, as the header says; `applied` notes each. */
function cliTable3Changes(root: string, applied: Set<string>): Plugin {
  return {
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
        // Named by the package, not the path: the name stays in the script.
        return {path: 'string-width', namespace: 'payctl-table-width', pluginData: real.path}
      })
      b.onLoad({filter: /.*/, namespace: 'payctl-table-width'}, (args) => {
        const real = args.pluginData as string
        return {
          contents: [
            `const {plainWidth} = require(${JSON.stringify(join(root, 'src', 'cli', 'rendering', 'plain-width.ts'))})`,
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
        `plainWidth(${JSON.stringify(text)}) is ${plain}, string-width says ${real(text)}: review src/cli/rendering/plain-width.ts`,
      )
  }
}
