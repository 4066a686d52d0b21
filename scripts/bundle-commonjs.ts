/**
 * The esbuild plugin that gives bundled CommonJS packages the named exports Node gives them, for
 * the CLI's bundle (scripts/bundle.ts) and the library's (scripts/bundle-library.ts).
 */
import {readFileSync} from 'node:fs'
import {createRequire, isBuiltin} from 'node:module'
import {dirname, join} from 'node:path'
import type {Plugin} from 'esbuild'

/**
 * Under Node, an ES module importing a CommonJS package gets the names its CommonJS lexer finds, read
 * once; esbuild instead copies every property into a fresh object in each importing module (62
 * commands importing oclif's index), and its chunk for a dynamic `import('undici')` would export
 * only `default`. So each CommonJS package that ES modules import goes through an ES module that
 * exports its names, read at build time: for a static import, each name is read only if something
 * imports it; for a dynamic one, all of them, as Node does.
 */
export function commonJsNamedExports(root: string): Plugin {
  const requireFromRoot = createRequire(join(root, 'package.json'))
  return {
    name: 'commonjs-named-exports',
    setup(b) {
      b.onResolve({filter: /^[^./]/}, async (args) => {
        if (args.kind !== 'dynamic-import' && args.kind !== 'import-statement') return undefined
        if (args.pluginData === 'real' || isBuiltin(args.path)) return undefined
        const resolved = await b.resolve(args.path, {
          kind: 'import-statement',
          resolveDir: args.resolveDir,
          pluginData: 'real',
        })
        if (resolved.errors.length > 0 || resolved.external || resolved.namespace !== 'file') return undefined
        if (!isCommonJs(resolved.path)) return undefined
        return {path: resolved.path, namespace: 'payctl-cjs', pluginData: args.kind}
      })
      b.onLoad({filter: /.*/, namespace: 'payctl-cjs'}, (args) => {
        const names = Object.keys(requireFromRoot(args.path)).filter(
          (n) => n !== 'default' && n !== '__esModule' && /^[A-Za-z_$][\w$]*$/.test(n),
        )
        const read =
          args.pluginData === 'dynamic-import'
            ? (n: string) => `m.${n}`
            : (n: string) => `/* @__PURE__ */ (() => m.${n})()`
        return {
          resolveDir: dirname(args.path),
          contents: [
            `const m = require(${JSON.stringify(args.path)})`,
            'export default m',
            ...names.map((n) => `export const ${n} = ${read(n)}`),
          ].join('\n'),
        }
      })
    },
  }
}

/** Whether `file` is a CommonJS module, as Node decides it: its extension, or its package's `type`. */
function isCommonJs(file: string): boolean {
  if (file.endsWith('.cjs')) return true
  if (!file.endsWith('.js')) return false
  for (let dir = dirname(file); dir !== dirname(dir); dir = dirname(dir)) {
    try {
      return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).type !== 'module'
    } catch {
      // no package.json here: look further up
    }
  }
  return true
}
