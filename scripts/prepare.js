// npm's `prepare` step: build payctl when `npm ci` or `npm install` sets up this checkout, and at no
// other time. npm also runs `prepare` for `npm link`, for a global install of this folder and when
// `npm exec` installs it into npm's cache; a build then would rewrite dist/ under whatever is
// running from it (a test run, a sandbox) as a side effect of another command. `npm pack` and
// `npm publish` build through `prepack`, which runs just before: for them nothing is said, as
// "no build" would read as if the package held none. Plain JavaScript: npm may run it with an
// older `node`.
import {spawnSync} from 'node:child_process'
import {realpathSync} from 'node:fs'
import {dirname, resolve} from 'node:path'
import {fileURLToPath} from 'node:url'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const real = (p) => {
  try {
    return realpathSync(p)
  } catch {
    return resolve(p)
  }
}
const command = process.env.npm_command
const settingUpThisCheckout =
  (command === 'ci' || command === 'install') &&
  process.env.npm_config_global !== 'true' &&
  real(process.env.INIT_CWD ?? '') === real(root)

if (settingUpThisCheckout) {
  const result = spawnSync('npm', ['run', 'build'], {
    cwd: root,
    stdio: 'inherit',
    shell: process.platform === 'win32',
  })
  process.exit(result.status ?? 1)
} else if (command !== 'pack' && command !== 'publish') {
  console.log(`payctl: no build on "npm ${command ?? '?'}" (npm ci builds; npm run build rebuilds)`)
}
