import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {sandboxClient} from '../../src/core/index.js'
import {type SandboxProcess, startSandboxProcess} from '../helpers/sandbox.js'

/**
 * A sandbox in a process of its own (`payctl sandbox start --json --show-secrets`, as a test
 * runner on an older Node starts one): what it prints is the connection sandboxClient() takes.
 */
let sandbox: SandboxProcess
beforeAll(async () => {
  sandbox = await startSandboxProcess()
})
afterAll(() => sandbox.stop())

describe('sandboxClient() on a sandbox started by the CLI', () => {
  it('takes what sandbox start --json prints, and drives partners, seeds and clocks there', async () => {
    const operator = sandboxClient({url: sandbox.url, credentials: sandbox.credentials})
    try {
      expect((await operator.health()).pid).toBe(sandbox.pid)
      const partner = await operator.partners.create('from-elsewhere')
      const ids = await partner.seed({
        users: {ada: {email: 'ada@example.test', first_name: 'A', last_name: 'L'}},
      })
      const ada = ids.users?.ada
      expect(ada !== undefined && !Array.isArray(ada) && ada.id.startsWith('usr_')).toBe(true)
      expect((await partner.clock.advance('2h')).offsetSeconds).toBeGreaterThanOrEqual(7_200)
      expect((await operator.clock.now()).offsetSeconds).toBe(0)
    } finally {
      await operator.close()
    }
  })
})
