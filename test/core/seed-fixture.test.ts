import {mkdtempSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import type {PayctlError} from '../../src/core/index.js'
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

describe('a fixture with several problems', () => {
  it('reports all seven mistakes of a fixture at once, each at its place, in file order', async () => {
    const path = file(
      [
        'name: seven',
        'users:',
        '  alice:',
        '    email: alice@example.test',
        '    first_name: Alice',
        '    last_name: Archer',
        '  bob:',
        '    email: bob-at-example.test',
        '    first_name: Bob',
        '    last_name: Baker',
        '  carol:',
        '    email: carol@example.test',
        '    first_name: Carol',
        '  alice:',
        '    email: alice2@example.test',
        '    first_name: Alice',
        '    last_name: Again',
        'wallets:',
        '  alice_usd:',
        '    user: ${users.alice.id}',
        '    currency: USD',
        '    initial_balance: 12.345USD',
        '  bob_xyz:',
        '    user: ${users.bob.id}',
        '    currency: XYZ',
        '  ghost_usd:',
        '    user: ${users.ghost.id}',
        '    currency: USD',
        'transactions:',
        '  lunch:',
        '    method: cheque',
        '    amount: 1250',
        '    currency: USD',
        '    from: ${wallets.alice_usd.id}',
        '    to: ${wallets.bob_xyz.id}',
        '',
      ].join('\n'),
    )
    const error = await loadFixture(path, {}).then(
      () => undefined,
      (err: PayctlError) => err,
    )
    expect(error?.code).toBe('INVALID_FIXTURE')
    expect(error?.exitCode).toBe(2)
    const [head, ...lines] = error!.message.split('\n')
    expect(head).toMatch(/^7 problems in f\d+\.yaml; nothing was sent:$/)
    expect(lines.map((l) => l.replace(`  ${path}:`, ''))).toEqual([
      '8:5: users.bob.email: "bob-at-example.test" is not an email address',
      expect.stringMatching(/^11:3: users\.carol\.last_name: /),
      '14:3: users.alice: the name is used twice (first at line 3); each record needs a name of its own',
      '22:5: wallets.alice_usd.initial_balance: USD has 2 decimal places; "12.345USD" has 3',
      expect.stringMatching(/^25:5: wallets\.bob_xyz\.currency: unsupported currency "XYZ"/),
      '26:3: wallets.ghost_usd: ${users.ghost.id} names no record of the fixture',
      expect.stringMatching(/^31:5: transactions\.lunch\.method: /),
    ])
  })

  it('tells a problem that every record of a counted entry has once', async () => {
    const path = file(
      'users:\n  u:\n    count: 500\n    email: u{{n}}@x.test\n    first_name: U\n    last_name: V\nwallets:\n  w:\n    count: 500\n    user: ${users.u[{{i}}].id}\n    currency: USD\n    initial_balance: 12.345USD\n    owner: ${users.nobody.id}\n',
    )
    const error = await loadFixture(path, {}).catch((err: PayctlError) => err)
    expect((error as PayctlError).message.split('\n')).toEqual([
      '2 problems in ' + path.split('/').at(-1) + '; nothing was sent:',
      `  ${path}:8:3: wallets.w: Unrecognized key: "owner"`,
      `  ${path}:12:5: wallets.w.initial_balance: USD has 2 decimal places; "12.345USD" has 3`,
    ])
  })
})
