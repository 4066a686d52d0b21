import type {SandboxHealth} from '../contract/index.js'
import {PayctlClient} from './client.js'
import {resolveProfile} from './profiles.js'

/** Ask whatever listens at `url` whether it is a payctl sandbox; undefined when nothing answers as one. */
export async function probeSandbox(url: string, timeoutMs = 3_000): Promise<SandboxHealth | undefined> {
  const client = new PayctlClient({
    profile: resolveProfile({profiles: {}}, {environment: 'local', baseUrl: url}, {}),
    retries: 0,
    timeoutMs,
  })
  return client.call('sandboxHealth').catch(() => undefined)
}
