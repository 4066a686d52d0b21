import {homedir} from 'node:os'
import {join} from 'node:path'

/** Where payctl keeps its profile file, sandbox database and state: `PAYCTL_CONFIG_DIR` wins. */
export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.PAYCTL_CONFIG_DIR) return env.PAYCTL_CONFIG_DIR
  if (process.platform === 'win32' && env.APPDATA) return join(env.APPDATA, 'payctl')
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Preferences', 'payctl')
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'payctl')
}
