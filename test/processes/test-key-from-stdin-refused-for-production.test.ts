import {existsSync, readFileSync} from 'node:fs'
import {createServer} from 'node:http'
import type {AddressInfo} from 'node:net'
import {join} from 'node:path'
import {expect, it} from 'vitest'
import {payctl, tempConfigDir} from '../helpers/cli.js'

// A process of its own: `--secret-key -` reads the key from payctl's stdin. (Every other way a test
// credential is kept from production: test/commands/profiles.test.ts.)
it('refuses to log in to production with a test key read from stdin, saving and sending nothing', async () => {
  const seen: string[] = []
  const server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`)
    res.writeHead(401, {'content-type': 'application/json'}).end('{}')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const temp = tempConfigDir()
  try {
    const login = await payctl(
      ['auth', 'login', '--env', 'production', '--base-url', url, '--secret-key', '-'],
      {
        configDir: temp.dir,
        input: 'test_stdin_key_0123456789abcdef',
      },
    )
    expect(login.exitCode).toBe(4)
    expect(login.stderr).toContain('TEST_CREDENTIAL_IN_PRODUCTION')
    const file = join(temp.dir, 'profiles.json')
    const saved = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {profiles: {}}
    expect(saved.profiles).toEqual({})
    expect(seen).toEqual([])
  } finally {
    temp.cleanup()
    await new Promise((resolve) => server.close(resolve))
  }
})
