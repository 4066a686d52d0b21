import {type SandboxConnection, startSandbox} from 'payctl/testing'
import type {TestProject} from 'vitest/node'

declare module 'vitest' {
  export interface ProvidedContext {
    sandbox: SandboxConnection
  }
}

/**
 * vitest's global set-up runs in the runner's own process, and so does the sandbox it starts: when
 * the run ends, however it ends (the last test, Ctrl-C, a kill), the sandbox ends with it. The test
 * files, in worker processes, get its URL and the operator's credentials as plain data.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const sandbox = await startSandbox()
  project.provide('sandbox', sandbox.connection)
  return () => sandbox.close()
}
