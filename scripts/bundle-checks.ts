/**
 * What scripts/bundle.ts puts in place of dependency code, and the checks that each stand-in still
 * matches what it stands in for. Each check throws a message naming the stand-in, so that a
 * dependency upgrade that breaks one fails `npm run build` instead of a user's command.
 */

/** A module that the bundle replaces by a stand-in loading it on first use (see LAZY_MODULES). */
export interface LazyModule {
  /** The specifier as importers write it. */
  specifier: string
  /** Only imports from a file whose path matches this. */
  from?: RegExp
  /** Source of an object whose properties answer in place of the real module's. */
  own?: string
  /** Calls of an `own` property to compare with the real module's; `fast` ones must not load it. */
  calls?: () => OwnCall[]
}

export interface OwnCall {
  method: string
  args: unknown[]
  fast?: boolean
}

/**
 * The stand-in for the module at `path`: a Proxy that loads it on first use. Its property names,
 * read from `real` at build time, keep `import {x} from` and `import *` working, a function module
 * stays callable and constructible, and `own` properties answer without loading it.
 */
export function standInSource(path: string, real: object, own = '{}'): string {
  const names = Object.getOwnPropertyNames(real)
  const esModule = (real as {__esModule?: unknown}).__esModule === true
  return `
let real
const load = () => (real ??= require(${JSON.stringify(path)}))
const own = ${own}
const names = ${JSON.stringify(names)}
module.exports = new Proxy(${typeof real === 'function' ? 'function () {}' : '{}'}, {
  get: (_, key) => (key === '__esModule' ? ${esModule} : Object.hasOwn(own, key) ? own[key] : Reflect.get(load(), key)),
  has: (_, key) => names.includes(key) || Reflect.has(load(), key),
  ownKeys: (target) => [...new Set([...names, ...Reflect.ownKeys(target)])],
  getOwnPropertyDescriptor: (target, key) =>
    Reflect.getOwnPropertyDescriptor(target, key) ??
    (names.includes(key) ? {configurable: true, enumerable: true, writable: true, value: undefined} : undefined),
  apply: (_, self, args) => Reflect.apply(load(), self, args),
  construct: (_, args, newTarget) => Reflect.construct(load(), args, newTarget),
})`
}

// biome-ignore lint/suspicious/noExplicitAny: a stand-in is whatever the module it stands in for is
type Any = any

/** Runs a stand-in's source as the bundle would, with a `require` that hands over `real` and counts. */
export function evaluateStandIn(source: string, real: unknown): {standIn: Any; loads: () => number} {
  let loads = 0
  const module = {exports: {} as unknown}
  const require = () => {
    loads++
    return real
  }
  // Strict, as in the bundle (an ES module).
  new Function('require', 'module', 'exports', `'use strict'\n${source}`)(require, module, module.exports)
  return {standIn: module.exports, loads: () => loads}
}

/**
 * Guards the Proxy itself: the stand-in loads nothing until used, is a function exactly when the real
 * module is, reports `__esModule` as it does, has each of its property names (`in`, own keys and
 * descriptors, which esbuild's `import` interop reads) with the same values, has no other name, and
 * forwards calls, `new` and subclassing. Each `own` property must stand in for one the module has.
 */
export function checkStandIn(label: string, source: string, real: object, own = '{}'): void {
  const fail = (what: string) => {
    throw new Error(`stand-in for ${label}: ${what}: review LAZY_MODULES in scripts/bundle.ts`)
  }
  const {standIn, loads} = evaluateStandIn(source, real)
  if (loads() !== 0) fail('loads the module before it is used')
  if (typeof standIn !== typeof real) fail(`is a ${typeof standIn}, the module a ${typeof real}`)
  const esModule = (real as {__esModule?: unknown}).__esModule === true
  if (standIn.__esModule !== esModule)
    fail(`says __esModule is ${standIn.__esModule}, the module ${esModule}`)
  const ownNames = Object.keys(new Function(`return (${own})`)() as object)
  const standInNames = new Set(Object.getOwnPropertyNames(standIn))
  const enumerable = new Set(Object.keys(standIn))
  for (const name of Object.getOwnPropertyNames(real)) {
    if (!(name in standIn) || !standInNames.has(name) || !Object.getOwnPropertyDescriptor(standIn, name)) {
      fail(`does not have the module's property "${name}"`)
    }
    if (Object.prototype.propertyIsEnumerable.call(real, name) && !enumerable.has(name)) {
      fail(`does not list the module's property "${name}" as enumerable`)
    }
    const value = (real as Record<string, unknown>)[name]
    if (ownNames.includes(name) ? typeof standIn[name] !== typeof value : standIn[name] !== value) {
      fail(`property "${name}" is not the module's`)
    }
  }
  for (const name of ownNames) {
    if (!Object.hasOwn(real, name)) fail(`stands in for "${name}", which the module no longer has`)
  }
  // The Proxy's target: a strict function (length, name, prototype) or an object.
  const targetNames = Object.getOwnPropertyNames(typeof real === 'function' ? class {} : {})
  for (const name of standInNames) {
    if (!Object.hasOwn(real, name) && !targetNames.includes(name))
      fail(`has a property "${name}" the module has not`)
  }
  if ('payctlNoSuchName' in standIn || standIn.payctlNoSuchName !== undefined)
    fail('has a name the module has not')
  if (typeof real === 'function') checkCallable(label, source, fail)
}

/** Against a double of the module, since calling the real one could do anything. */
function checkCallable(label: string, source: string, fail: (what: string) => never): void {
  let seen: {self: unknown; args: unknown[]; newTarget: unknown} | undefined
  const double = function (this: unknown, ...args: unknown[]) {
    seen = {self: this, args, newTarget: new.target}
    return new.target ? undefined : 'returned'
  }
  const {standIn} = evaluateStandIn(source, double)
  const self = {}
  if (standIn.call(self, 1, 'a') !== 'returned' || seen?.self !== self || seen.args.join() !== '1,a') {
    fail('does not forward a call')
  }
  if (!(new standIn(2) instanceof double) || seen?.args.join() !== '2') fail('does not forward `new`')
  const Sub = class extends standIn {}
  if (!(new Sub() instanceof Sub) || seen?.newTarget !== Sub)
    fail(`does not forward \`new\` of a subclass (${label})`)
}

/**
 * Guards an `own` fast path: each call gives what the real module gives (compared as JSON, with
 * the same thrown message), and each `fast` call is answered without loading the module.
 */
export function checkOwnCalls(label: string, source: string, real: object, calls: OwnCall[]): void {
  const run = (f: () => unknown) => {
    try {
      const value = f()
      return value instanceof Promise ? 'a promise' : JSON.stringify(value)
    } catch (error) {
      return `throws ${(error as Error).message}`
    }
  }
  for (const {method, args, fast} of calls) {
    const {standIn, loads} = evaluateStandIn(source, real)
    const call = `${method}(${args.map((a) => JSON.stringify(a)).join(', ')})`
    const got = run(() => standIn[method](...args))
    if (fast && loads() !== 0) {
      throw new Error(`stand-in for ${label}: ${call} loads the module: its fast path no longer answers it`)
    }
    const expected = run(() => (real as Record<string, (...a: unknown[]) => unknown>)[method]!(...args))
    if (got !== expected) {
      throw new Error(
        `stand-in for ${label}: ${call} gives ${got}, the module ${expected}: review its fast path`,
      )
    }
  }
}

/** Guards against dead entries: each lazy module must stand in for something the bundle imports. */
export function checkLazyModulesUsed(entries: LazyModule[], used: Set<LazyModule>): void {
  const unused = entries.filter((e) => !used.has(e))
  if (unused.length > 0) {
    const names = unused.map((e) => `"${e.specifier}"${e.from ? ` from ${e.from}` : ''}`).join(', ')
    throw new Error(`LAZY_MODULES: nothing in the bundle imports ${names}: remove it from scripts/bundle.ts`)
  }
}

/**
 * Guards oclif's command sort: the comparison that replaces `localeCompare` (its source, defining
 * `payctlCompareIds`) must order the ids as `localeCompare` does in the locales it answers for.
 */
export function checkIdOrder(compareSource: string, ids: string[]): void {
  for (const locale of ['en', 'en-US', 'und']) {
    const FakeIntl = {
      PluralRules: class extends Intl.PluralRules {
        constructor() {
          super(locale)
        }
      },
    }
    const compare = new Function('Intl', `${compareSource}\nreturn payctlCompareIds`)(FakeIntl) as (
      a: string,
      b: string,
    ) => number
    const expected = [...ids].sort((a, b) => a.localeCompare(b, locale))
    const got = [...ids].sort(compare)
    const at = got.findIndex((id, i) => id !== expected[i])
    if (at !== -1) {
      throw new Error(
        `payctlCompareIds orders "${got[at]}" where localeCompare in ${locale} has "${expected[at]}": review oclifSortWithoutCollator`,
      )
    }
    for (const a of ids) {
      for (const b of ids) {
        if (Math.sign(compare(a, b)) !== Math.sign(a.localeCompare(b, locale))) {
          throw new Error(
            `payctlCompareIds("${a}", "${b}") differs from localeCompare in ${locale}: review oclifSortWithoutCollator`,
          )
        }
      }
    }
  }
}
