import {createRequire} from 'node:module'
import {describe, expect, it} from 'vitest'
import {
  checkIdOrder,
  checkLazyModulesUsed,
  checkOwnCalls,
  checkStandIn,
  type LazyModule,
  standInSource,
} from '../../scripts/bundle-checks.ts'

/** The build's checks of its stand-ins (scripts/bundle-checks.ts) fail on a broken one. */
const require = createRequire(import.meta.url)
const minimatch = require('minimatch') as {minimatch: (path: string, pattern: string) => boolean}

// The fast path as it was first written: it takes `foo/` for a package name minimatch says it is not.
const looseMinimatch = `{
  minimatch: (path, pattern, options) =>
    options === undefined && typeof pattern === 'string' && /^(@[\\w.-]+\\/)?[\\w.-]+$/.test(pattern)
      ? path === pattern
      : load().minimatch(path, pattern, options),
}`

describe('bundle stand-in checks', () => {
  it('accepts a faithful stand-in, and answers as the module does', () => {
    const source = standInSource('minimatch', minimatch, looseMinimatch)
    expect(() => checkStandIn('"minimatch"', source, minimatch, looseMinimatch)).not.toThrow()
    const calls = [{method: 'minimatch', args: ['@oclif/plugin-help', '@oclif/plugin-help'], fast: true}]
    expect(() => checkOwnCalls('"minimatch"', source, minimatch, calls)).not.toThrow()
  })

  it('fails a fast path that answers otherwise than the module', () => {
    const source = standInSource('minimatch', minimatch, looseMinimatch)
    const calls = [{method: 'minimatch', args: ['foo/', 'foo']}]
    expect(() => checkOwnCalls('"minimatch"', source, minimatch, calls)).toThrow(
      'stand-in for "minimatch": minimatch("foo/", "foo") gives false, the module true: review its fast path',
    )
  })

  it('fails a fast path that no longer answers what it is there for', () => {
    const source = standInSource('minimatch', minimatch, looseMinimatch)
    const calls = [{method: 'minimatch', args: ['@oclif/core', '@oclif/*'], fast: true}]
    expect(() => checkOwnCalls('"minimatch"', source, minimatch, calls)).toThrow(
      'minimatch("@oclif/core", "@oclif/*") loads the module: its fast path no longer answers it',
    )
  })

  it('fails a stand-in whose names are not the module’s', () => {
    const stale = standInSource('m', {parse: () => 1})
    expect(() => checkStandIn('"m"', stale, {parse: () => 1, format: () => 2})).toThrow(
      'stand-in for "m": does not have the module\'s property "format"',
    )
    const own = '{gone: () => 0}'
    expect(() => checkStandIn('"m"', standInSource('m', {parse: 1}, own), {parse: 1}, own)).toThrow(
      'stands in for "gone", which the module no longer has',
    )
  })

  it('fails a stand-in that does not forward `new` of a subclass', () => {
    class Real {}
    const source = standInSource('real', Real).replace(
      'Reflect.construct(load(), args, newTarget)',
      'Reflect.construct(load(), args)',
    )
    expect(() => checkStandIn('"real"', source, Real)).toThrow('does not forward `new` of a subclass')
    expect(() => checkStandIn('"real"', standInSource('real', Real), Real)).not.toThrow()
  })

  it('fails an entry that stands in for nothing the bundle imports', () => {
    const used: LazyModule = {specifier: 'semver'}
    const dead: LazyModule = {specifier: './client-h2.js', from: /undici\/lib\/client\.js$/}
    expect(() => checkLazyModulesUsed([used, dead], new Set([used]))).toThrow(
      'LAZY_MODULES: nothing in the bundle imports "./client-h2.js" from /undici\\/lib\\/client\\.js$/',
    )
  })

  it('fails a command id order that is not localeCompare’s', () => {
    const byCodeUnit = 'function payctlCompareIds(a, b) { return a < b ? -1 : a > b ? 1 : 0 }'
    expect(() => checkIdOrder(byCodeUnit, ['wallets', 'wallets2', 'wallets:get'])).toThrow(
      /payctlCompareIds orders "wallets2" where localeCompare in en has "wallets:get"/,
    )
  })
})
