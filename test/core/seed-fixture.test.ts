import {mkdtempSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {loadFixture} from '../../src/core/seed/index.js'
import {plan} from '../../src/core/seed/runner.js'

const dir = mkdtempSync(join(tmpdir(), 'payctl-fixture-'))
let n = 0
function file(text: string, ext = 'yaml'): string {
  const path = join(dir, `f${n++}.${ext}`)
  writeFileSync(path, text)
  return path
}

describe('loadFixture', () => {
  it('expands counts, fills {{i}}/{{n}} and env vars, and finds references', async () => {
    const f = await loadFixture(
      file(`
users:
  u:
    count: 3
    email: u{{n}}@\${env.DOMAIN:-example.test}
    first_name: U{{i}}
    last_name: X
wallets:
  w:
    count: 3
    user: \${users.u[{{i}}].id}
    currency: USD
`),
      {},
    )
    expect(f.records).toHaveLength(6)
    expect(f.records[2]).toMatchObject({
      kind: 'users',
      name: 'u[2]',
      fields: {email: 'u3@example.test', first_name: 'U2'},
    })
    expect(f.records[4]).toMatchObject({kind: 'wallets', name: 'w[1]', dependsOn: ['users.u[1]']})
    expect(plan(f).map((s) => [s.wave, s.kind, s.names.length])).toEqual([
      [0, 'users', 3],
      [1, 'wallets', 3],
    ])
  })

  it('finds no environment variable an object inherits: ${env.toString} is not set', async () => {
    const text = (ref: string) =>
      file(`users:\n  a:\n    email: a@x.test\n    first_name: A\n    last_name: ${ref}\n`)
    for (const env of [{}, process.env]) {
      await expect(loadFixture(text('${env.toString}'), env)).rejects.toThrow(
        'environment variable toString is not set',
      )
      const f = await loadFixture(text('${env.constructor:-Smith}'), env)
      expect(f.records[0]!.fields.last_name).toBe('Smith')
    }
  })

  it('reads JSON fixtures too', async () => {
    const f = await loadFixture(
      file('{"users": {"a": {"email": "a@x.test", "first_name": "A", "last_name": "B"}}}', 'json'),
    )
    expect(f.records).toHaveLength(1)
  })

  it.each([
    ['users:\n  a:\n    email: a@x.test\n    first_name: A\n', /:2:\d+: users\.a\.last_name: /],
    [
      'users:\n  a:\n    email: a@x.test\n    first_name: A\n    last_name: B\n    nickname: C\n',
      /:2:\d+: users\.a: Unrecognized key: "nickname"/,
    ],
    [
      'wallets:\n  w:\n    user: ${users.nobody.id}\n    currency: USD\n',
      /:2:\d+: wallets\.w: \$\{users\.nobody\.id\} names no record/,
    ],
    [
      'users:\n  a:\n    email: a@x.test\n    first_name: [1]\n    last_name: B\n',
      /:4:5: users\.a\.first_name: /,
    ],
    ['transactions:\n  t:\n    method: cheque\n    amount: 5\n', /:3:5: transactions\.t\.method: /],
    ['users: [1, 2\n', /:\d+:\d+: /],
    [
      'wallets:\n  w:\n    user: ${env.NOT_SET_ANYWHERE}\n    currency: USD\n',
      /environment variable NOT_SET_ANYWHERE is not set/,
    ],
    [
      'wallets:\n  a:\n    user: ${wallets.b.id}\n    currency: USD\n  b:\n    user: ${wallets.a.id}\n    currency: USD\n',
      /circle: wallets\.a → wallets\.b → wallets\.a/,
    ],
    [
      'users:\n  u:\n    count: 2\n    email: u{{i}}@x.test\n    first_name: A\n    last_name: B\nwallets:\n  w:\n    user: ${users.u[2].id}\n    currency: USD\n',
      /users\.u\[2\] is past its count of 2/,
    ],
    ['payments: {}\n', /Unrecognized key: "payments"/],
  ])('rejects a bad fixture with file, line and field: %s', async (text, message) => {
    const path = file(text)
    await expect(loadFixture(path, {})).rejects.toThrow(message)
    await expect(loadFixture(path, {})).rejects.toThrow(path)
  })
})
