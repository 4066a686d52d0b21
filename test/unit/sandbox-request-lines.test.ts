import {describe, expect, it} from 'vitest'
import {linesPerTurn} from '../../src/cli/local-sandbox/sandbox-start.js'

describe("a running sandbox's request lines on stderr", () => {
  it('are written together once per turn, in order, each as shown', async () => {
    const writes: string[] = []
    const log = linesPerTurn(
      (text) => writes.push(text),
      (line) => `[${line}]`,
    )
    log('GET /v1/users 200 1.0ms req_1')
    log('POST /v1/transactions 201 2.0ms req_2')
    expect(writes).toEqual([])
    await new Promise((resolve) => setImmediate(resolve))
    expect(writes).toEqual(['[GET /v1/users 200 1.0ms req_1]\n[POST /v1/transactions 201 2.0ms req_2]\n'])
    log('GET /v1/wallets/w 404 0.5ms req_3')
    await new Promise((resolve) => setImmediate(resolve))
    expect(writes).toHaveLength(2)
    expect(writes[1]).toBe('[GET /v1/wallets/w 404 0.5ms req_3]\n')
  })

  it('are written at once by flush, before a line of the command’s own, and not again', async () => {
    const writes: string[] = []
    const log = linesPerTurn(
      (text) => writes.push(text),
      (line) => line,
    )
    log('a')
    log.flush()
    writes.push('Stopping sandbox…\n')
    log.flush()
    await new Promise((resolve) => setImmediate(resolve))
    expect(writes).toEqual(['a\n', 'Stopping sandbox…\n'])
  })
})
