import {spawnSync} from 'node:child_process'
import {describe, expect, it} from 'vitest'
import {sandboxNodeProblem} from '../../src/sandbox/storage/sqlite.js'
import {ROOT} from '../helpers/cli.js'
import {olderNode} from '../helpers/older-node.js'

const OLD_NODE = olderNode()

/** What `node` prints and exits with for an ES module `source` run in the checkout (`payctl` is the build's). */
function runModule(node: string, source: string) {
  return spawnSync(node, ['--input-type=module', '--eval', source], {cwd: ROOT, encoding: 'utf8'})
}

describe('payctl/sandbox on a Node without node:sqlite', () => {
  it('says which Node it needs, in one line: older Nodes, and a Node 24 without node:sqlite', () => {
    expect(sandboxNodeProblem('v24.0.0', true)).toBeUndefined()
    expect(sandboxNodeProblem('v26.1.0', true)).toBeUndefined()
    for (const [version, hasSqlite] of [
      ['v20.20.2', false],
      ['v22.12.0', true],
      ['v24.1.0', false],
    ] as const) {
      const problem = sandboxNodeProblem(version, hasSqlite)
      expect(problem).toMatch(/^payctl\/sandbox needs Node 24 or later \(node:sqlite\); this is Node v\d/)
      expect(problem).toContain(version)
      expect(problem).not.toContain('\n')
    }
  })

  it.runIf(OLD_NODE)('fails its import with that line, not with an unknown builtin', () => {
    for (const entry of ['payctl/sandbox', 'payctl/testing']) {
      const caught = runModule(
        OLD_NODE!,
        `import(${JSON.stringify(entry)}).then(() => console.log('loaded'), (e) => console.log(e.message))`,
      )
      const version = spawnSync(OLD_NODE!, ['--version'], {encoding: 'utf8'}).stdout.trim()
      expect(caught.stdout).toBe(
        `payctl/sandbox needs Node 24 or later (node:sqlite); this is Node ${version}. Run it on Node 24, or start the sandbox with the payctl command (payctl sandbox start), which brings its own.\n`,
      )
      // A plain import fails the program with it too, and with nothing about node:sqlite's absence.
      const plain = runModule(OLD_NODE!, `import ${JSON.stringify(entry)}`)
      expect(plain.status).toBe(1)
      expect(plain.stderr).toContain(
        `Error: payctl/sandbox needs Node 24 or later (node:sqlite); this is Node ${version}.`,
      )
      expect(plain.stderr).not.toContain('ERR_UNKNOWN_BUILTIN_MODULE')
    }
  })

  it('loads on Node 24, as does the package root', () => {
    const loaded = runModule(
      process.execPath,
      "const [s, p] = await Promise.all([import('payctl/sandbox'), import('payctl')]); console.log(typeof s.startSandbox, typeof p.connect)",
    )
    expect(loaded.stderr).toBe('')
    expect(loaded.stdout).toBe('function function\n')
  })
})
