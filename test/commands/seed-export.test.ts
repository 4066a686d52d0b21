import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, test} from 'vitest'
import {cliFor} from '../helpers/cli.js'
import {startLocalSandbox} from '../helpers/local-sandbox.js'

/** The shop fixture's users, wallets, card, payments, round-up settings and a webhook. */
const FIXTURE = `version: 1
name: source
users:
  alice: {email: alice@example.test, first_name: Alice, last_name: Archer, external_id: crm-alice}
  bob: {email: bob@example.test, first_name: Bob, last_name: Baker}
wallets:
  alice_usd: {user: "\${users.alice.id}", currency: USD, label: Everyday, initial_balance: 250.00USD}
  alice_eur: {user: "\${users.alice.id}", currency: EUR}
  bob_usd: {user: "\${users.bob.id}", currency: USD, initial_balance: 200.00USD}
payment_methods:
  alice_visa: {user: "\${users.alice.id}", type: card, token: tok_visa}
  bob_ach: {user: "\${users.bob.id}", type: ach, token: tok_ach_success}
transactions:
  top_up: {method: card, amount: 40.00USD, to: "\${wallets.alice_usd.id}", payment_method: "\${payment_methods.alice_visa.id}"}
  lunch: {method: wallet, amount: 12.50USD, from: "\${wallets.alice_usd.id}", to: "\${wallets.bob_usd.id}"}
roundup_settings:
  alice: {user: "\${users.alice.id}", multiplier: 2, max_roundup_amount: 5, destination_account_id: "\${wallets.bob_usd.id}"}
webhooks:
  orders: {url: "https://hooks.example.test/payctl", events: [transaction.completed, wallet.created]}
bnpl_payments:
  shoes: {user: "\${users.alice.id}", amount: 8000, currency: USD, merchant_name: Shoe Shop, after: [wallets.alice_usd]}
`

/** Wait until every BNPL plan has had its first instalment collected (the export reads a state at rest). */
async function plansActive(configDir: string): Promise<void> {
  const deadline = Date.now() + 20_000
  for (;;) {
    const listed = await cliFor(configDir)('bnpl', 'payments', 'list', '--json')
    const payments = (listed.json() as {payments: {status: string}[]}).payments
    if (payments.length > 0 && payments.every((p) => p.status === 'active')) return
    if (Date.now() > deadline) throw new Error('the BNPL plans never became active')
    await new Promise((r) => setTimeout(r, 50))
  }
}

/** The document with what a fresh sandbox gives anew (ids) replaced by placeholders. */
const withoutIds = (doc: string) => doc.replace(/\b(usr|wal|pm|ba|bnpl|txn)_[0-9a-f]{8,}\b/g, '$1_…')

describe('seed export', () => {
  test('round trip: export, seed into a fresh sandbox, export again: the same document but for ids', async () => {
    // Instalments are collected at once (at the sandbox's next tick): the first is taken before
    // each export reads the state.
    const first = await startLocalSandbox({settleAfterSeconds: 0})
    const cli = cliFor(first, {timeoutMs: 60_000})
    try {
      const fixture = join(first.configDir, 'source.yaml')
      writeFileSync(fixture, FIXTURE)
      const seeded = await cli('seed', fixture)
      expect(seeded.exitCode, seeded.stderr).toBe(0)
      await plansActive(first.configDir)
      const exported = join(first.configDir, 'exported.yaml')
      const res = await cli('seed', 'export', '--file', exported)
      expect(res.exitCode, res.stderr).toBe(0)
      const once = readFileSync(exported, 'utf8')
      // Balances after the payments, not the fixture's opening ones; what is not recreated is named.
      const aliceUsd = /alice_example_test_usd:\n(?:\s+.*\n)*?\s+initial_balance: "?(\d+)"?/.exec(once)
      expect(aliceUsd, once).not.toBeNull()
      expect(Number(aliceUsd![1])).not.toBe(25_000)
      expect(once).toMatch(/^# .*transactions, ledger entries and events/m)
      expect(once).toMatch(/^# .*webhook signing secrets/m)
      expect(once).toContain('token: tok_ach_success')
      // The open plan is made again; its wallet starts with the first instalment it collects again.
      expect(once).toMatch(
        /bnpl_payments:\n\s+alice_example_test_usd_bnpl_1:\n(?:\s+.*\n)*?\s+merchant_name: Shoe Shop/,
      )

      const second = await startLocalSandbox({settleAfterSeconds: 0})
      const other = cliFor(second, {timeoutMs: 60_000})
      try {
        const again = await other('seed', exported)
        expect(again.exitCode, again.stderr).toBe(0)
        await plansActive(second.configDir)
        const twice = await other('seed', 'export')
        expect(twice.exitCode, twice.stderr).toBe(0)
        expect(withoutIds(twice.stdout)).toBe(withoutIds(once))
      } finally {
        await second.stop()
      }
    } finally {
      await first.stop()
    }
  })
})
