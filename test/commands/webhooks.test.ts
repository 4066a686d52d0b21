import {writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {signatureHeader} from '../../src/contract/webhook-signing/signature.js'
import {type Cli, cliFor, tempConfigDir} from '../helpers/cli.js'
import {type LocalSandbox, startLocalSandbox} from '../helpers/local-sandbox.js'
import {type Receiver, startReceiver} from '../helpers/webhooks-receiver.js'

interface CliError {
  error: {code: string; message: string; exitCode: number; details?: Record<string, unknown>}
}

/**
 * The webhooks commands, in the test's process. What needs payctl's own process (verify reading
 * stdin, listen's secret made by two processes at once, Ctrl-C, an exit a supervisor sees):
 * test/processes/webhooks-verify-stdin-and-listen-process.test.ts.
 */
describe('webhooks commands', () => {
  let sandbox: LocalSandbox
  let receiver: Receiver
  let cli: Cli

  beforeAll(async () => {
    sandbox = await startLocalSandbox({webhookRetries: 'fast'})
    cli = cliFor(sandbox)
    receiver = await startReceiver()
  })
  afterAll(async () => {
    await receiver?.close()
    await sandbox?.stop()
  })

  it('registers, lists, shows, rotates and deletes a webhook', async () => {
    const typo = await cli(
      'webhooks',
      'register',
      '--url',
      receiver.url,
      '--events',
      'wallet.created,wallet.create',
    )
    expect(typo.exitCode).toBe(2)
    expect(typo.stderr).toContain('unknown event "wallet.create"; did you mean "wallet.created"?')

    const registered = await cli(
      'webhooks',
      'register',
      '--url',
      receiver.url,
      '--events',
      'wallet.*',
      '--json',
    )
    expect(registered.exitCode, registered.stderr).toBe(0)
    const hook = registered.json<{id: string; secret: string; events: string[]}>()
    expect(hook.secret).toMatch(/^whsec_/)
    expect(hook.events).toEqual(['wallet.*'])

    const list = await cli('webhooks', 'list', '--json')
    expect(list.json<{webhooks: {id: string}[]}>().webhooks.map((w) => w.id)).toContain(hook.id)
    expect(list.stdout).not.toContain(hook.secret)
    const shown = await cli('webhooks', 'get', hook.id)
    expect(shown.stdout).toContain(`whsec_…${hook.secret.slice(-4)}`)
    expect(shown.stdout).not.toContain(hook.secret)

    const rotated = await cli('webhooks', 'rotate-secret', hook.id, '--expires-in', '1h', '--json')
    const next = rotated.json<{secret: string; previousSecretExpiresAt: string}>()
    expect(next.secret).not.toBe(hook.secret)
    expect(Date.parse(next.previousSecretExpiresAt) - Date.now()).toBeGreaterThan(3_500_000)

    const deleted = await cli('webhooks', 'delete', hook.id, '--json')
    expect(deleted.json()).toEqual({id: hook.id, deleted: true})
    const gone = await cli('webhooks', 'get', hook.id, '--json')
    expect(gone.exitCode).toBe(1)
    expect(gone.json<CliError>().error.code).toBe('NOT_FOUND')
  })

  it('verifies a real delivery, and names each way a signature can fail', async () => {
    const registered = await cli(
      'webhooks',
      'register',
      '--url',
      receiver.url,
      '--events',
      'wallet.created',
      '--json',
    )
    const {secret} = registered.json<{secret: string}>()
    const triggered = await cli('webhooks', 'trigger', 'wallet.created')
    expect(triggered.exitCode, triggered.stderr).toBe(0)
    expect(triggered.stdout.trim()).toMatch(/^evt_/)
    const [delivery] = await receiver.waitFor(1)
    const header = delivery!.headers['x-service-signature'] as string
    const {dir, cleanup} = tempConfigDir()
    try {
      const body = join(dir, 'body.json')
      writeFileSync(body, delivery!.body)
      const pretty = join(dir, 'pretty.json')
      writeFileSync(pretty, JSON.stringify(delivery!.json, null, 2))
      const old = signatureHeader(delivery!.body, [secret], Math.floor(Date.now() / 1000) - 1000)
      const verify = (args: string[]) => cli('webhooks', 'verify', '--secret', secret, ...args)
      const [file, missing, malformed, noV1, wrongSecret, reserialised, stale, staleAllowed] =
        await Promise.all([
          verify(['--signature', header, '--payload', body]),
          verify(['--signature', '', '--payload', body, '--json']),
          verify(['--signature', 'sha256=abc', '--payload', body, '--json']),
          verify(['--signature', 't=1767225600,v0=abc', '--payload', body, '--json']),
          cli(
            'webhooks',
            'verify',
            '--secret',
            'whsec_wrong',
            '--signature',
            header,
            '--payload',
            body,
            '--json',
          ),
          verify(['--signature', header, '--payload', pretty, '--json']),
          verify(['--signature', old, '--payload', body, '--json']),
          verify(['--signature', old, '--payload', body, '--tolerance', '0']),
        ])
      expect(file.exitCode, file.stderr).toBe(0)
      expect(file.stdout).toMatch(/^✓ valid signature \(t=\d+/)
      const json = await verify(['--signature', header, '--payload', body, '--json'])
      expect(json.json()).toMatchObject({valid: true, secretIndex: 0})
      const failure = (r: typeof missing) => {
        expect(r.exitCode).toBe(1)
        return r.json<CliError>().error
      }
      expect(failure(missing).code).toBe('SIGNATURE_MISSING')
      expect(failure(malformed).code).toBe('SIGNATURE_MALFORMED')
      expect(failure(noV1).code).toBe('SIGNATURE_NO_V1')
      const mismatch = failure(wrongSecret)
      expect(mismatch.code).toBe('SIGNATURE_MISMATCH')
      expect(mismatch.message).toContain('secret')
      expect(failure(reserialised).message).toContain('re-serialising')
      const tooOld = failure(stale)
      expect(tooOld.code).toBe('SIGNATURE_TIMESTAMP_OUT_OF_TOLERANCE')
      // Signed 1000 s before the test verified it: however slow the machine, at most a minute or so more.
      expect(tooOld.message).toMatch(/10\d\d s old \(tolerance 300 s\)/)
      expect(staleAllowed.exitCode, staleAllowed.stderr).toBe(0)
    } finally {
      cleanup()
    }
  })

  it('verify refuses an empty --secret as a usage error naming the flag', async () => {
    for (const secret of ['', '  ']) {
      const r = await cli('webhooks', 'verify', '--secret', secret, '--signature', 't=1,v1=00', '--json')
      expect(r.exitCode, r.stdout).toBe(2)
      const error = r.json<CliError>().error
      expect(error).toMatchObject({code: 'MISSING_FLAG', details: {flag: '--secret'}})
      expect(error.message).toContain('--secret')
    }
  })

  it('refuses to trigger an unknown event, suggesting the closest name', async () => {
    const r = await cli('webhooks', 'trigger', 'transaction.complete')
    expect(r.exitCode).toBe(2)
    expect(r.stderr).toContain('did you mean "transaction.completed"?')
  })
})

describe('webhooks register to a receiver the sandbox refuses', () => {
  // A sandbox of its own that records no event: nothing could be delivered even to a registration
  // that got through.
  let sandbox: LocalSandbox
  beforeAll(async () => {
    sandbox = await startLocalSandbox()
  })
  afterAll(async () => {
    await sandbox?.stop()
  })

  it('says which address the URL carries and why, and exits 1, registering nothing', async () => {
    const cli = cliFor(sandbox)
    const url = 'http://[2002:a9fe:a9fe::1]/latest/meta-data/' // 6to4 for 169.254.169.254
    const human = await cli('webhooks', 'register', '--url', url, '--events', 'wallet.created')
    expect(human.exitCode).toBe(1)
    expect(human.stdout).toBe('')
    expect(human.stderr).toContain(
      'VALIDATION_ERROR: Invalid request body: url: 2002:a9fe:a9fe::1 carries 169.254.169.254, a link-local, multicast or cloud metadata address, which the sandbox never delivers to',
    )
    const json = await cli('webhooks', 'register', '--url', url, '--events', 'wallet.created', '--json')
    expect(json.exitCode).toBe(1)
    expect(json.json<CliError>().error).toMatchObject({
      code: 'VALIDATION_ERROR',
      status: 400,
      details: {field: 'url', issues: [{path: 'url', code: 'url_not_allowed'}]},
    })
    expect((await cli('webhooks', 'list', '--json')).json<{webhooks: unknown[]}>().webhooks).toEqual([])
  })
})
