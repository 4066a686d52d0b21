import {DEFAULT_SERVER_URL} from '../../contract/api/openapi.js'
import {type ProfileStore, resolveProfile} from '../../core/index.js'

/**
 * The server `sandbox openapi` names: the base URL of the profile it acts on when that profile is a
 * local sandbox's (as the running sandbox names itself at /openapi.json), the default sandbox's
 * otherwise. Offline: the document is printed whether or not a sandbox runs, or a profile exists.
 */
export function openApiServerOf(
  store: ProfileStore,
  profile: string | undefined,
  env: NodeJS.ProcessEnv,
): string {
  try {
    const resolved = resolveProfile(store.read(), {profile}, env)
    return resolved.environment === 'local' ? resolved.baseUrl.replace(/\/+$/, '') : DEFAULT_SERVER_URL
  } catch {
    return DEFAULT_SERVER_URL
  }
}
