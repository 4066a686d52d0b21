import fc from 'fast-check'
import {describe, expect, it} from 'vitest'
import {rawJSON} from '../../src/contract/money/amounts.js'
import {canonicalJson} from '../../src/sandbox/http/json.js'

/** canonicalJson as it was written before flat objects took a way of their own: what stored fingerprints were made with. */
function reference(value: unknown): string {
  if (value === undefined) return ''
  return JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v === 'bigint') return rawJSON(v.toString())
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return v
    const sorted: Record<string, unknown> = Object.create(null)
    for (const k of Object.keys(v).sort()) sorted[k] = (v as Record<string, unknown>)[k]
    return sorted
  })
}

const scalar = fc.oneof(
  fc.string(),
  fc.string({unit: 'grapheme'}),
  fc.double(),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.bigInt(),
)
const key = fc.oneof(fc.string(), fc.constantFrom('__proto__', 'constructor', 'toJSON', '', '1', '01', 'a"b'))

describe('canonicalJson', () => {
  it('writes a flat object as the general case does, so stored fingerprints still match', () => {
    fc.assert(
      fc.property(fc.dictionary(key, scalar), (body) => {
        expect(canonicalJson(body)).toBe(reference(body))
      }),
      {numRuns: 2000},
    )
  })

  it('writes anything else as before', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(canonicalJson(value)).toBe(reference(value))
      }),
    )
    for (const value of [
      {},
      [],
      {a: undefined, b: 1},
      {d: new Date(0)},
      new Date(0),
      {b: {c: 1, a: 2}, a: [1]},
    ])
      expect(canonicalJson(value)).toBe(reference(value))
  })
})
