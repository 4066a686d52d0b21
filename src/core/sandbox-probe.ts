import type {SandboxHealth} from '../contract/index.js'
import {PayctlClient} from './client.js'
import {resolveProfile} from './profiles.js'
import {Connections} from './transport.js'

/** Ask whatever listens at `url` whether it is a payctl sandbox; undefined when nothing answers as one. */
export async function probeSandbox(url: string, timeoutMs = 3_000): Promise<SandboxHealth | undefined> {
  const connections = new Connections()
  const client = new PayctlClient({
    profile: resolveProfile({profiles: {}}, {environment: 'local', baseUrl: url}, {}),
    retries: 0,
    timeoutMs,
    connections,
  })
  try {
    return await client.call('sandboxHealth').catch(() => undefined)
  } finally {
    await connections.close()
  }
}
