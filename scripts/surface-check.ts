/**
 * Plain JavaScript that checks a value against a zod schema, generated at build time from the
 * schema itself, for the fast path of bin/run.js: it decides whether an answer is one the client
 * takes (its surface) without loading zod. A check may refuse what zod would take (the fast path
 * then hands the answer to the full CLI, which decides) but must never take what zod refuses: it
 * knows only the constructs below, and the build fails on any other, rather than guess.
 * test/unit/fast-path-build.test.ts compares it with zod on random values.
 */

// biome-ignore lint/suspicious/noExplicitAny: zod's internal definitions, read structurally
type Def = any
interface Schema {
  _zod: {def: Def}
}

/** The source of `(value) => boolean` for `schema`: an expression, with functions of its own. */
export function surfaceCheckSource(schema: Schema, label: string): string {
  const functions: string[] = []
  const names = new Map<Schema, string>()
  const fn = (s: Schema): string => {
    const known = names.get(s)
    if (known !== undefined) return known
    const name = `c${names.size}`
    names.set(s, name)
    functions.push(`function ${name}(v) { return ${expression(s, fn, label)} }`)
    return name
  }
  const root = fn(schema)
  return `(() => {\n  const own = Object.hasOwn\n  const plain = (v) => typeof v === 'object' && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype\n  ${functions.join('\n  ')}\n  return ${root}\n})()`
}

/** The check of one node, calling `fn(child)` for the name of each child's check. */
function expression(schema: Schema, fn: (s: Schema) => string, label: string): string {
  const def = schema._zod.def
  const unsupported = (what: string): never => {
    throw new Error(
      `${label}: the fast path cannot check ${what} in plain code: teach scripts/surface-check.ts, or take the command out of ONE_CALL_COMMANDS`,
    )
  }
  // A refinement (a custom check) can say anything: only the checks read below are understood.
  if (!['string', 'number', 'array'].includes(def.type) && (def.checks ?? []).length > 0)
    unsupported(
      `a ${def.type} with checks of its own (${def.checks.map((c: Schema) => c._zod.def.check).join(', ')})`,
    )
  switch (def.type) {
    case 'string':
      return all([
        'typeof v === "string"',
        ...(def.checks ?? []).map((c: Schema) => lengthCheck(c, unsupported)),
      ])
    case 'number':
      return all([
        'typeof v === "number" && Number.isFinite(v)',
        ...(def.checks ?? []).map((c: Schema) => numberCheck(c, unsupported)),
      ])
    case 'boolean':
      return 'typeof v === "boolean"'
    case 'unknown':
    case 'any':
      return 'true'
    case 'literal':
      return `${JSON.stringify(def.values)}.includes(v)`
    case 'enum':
      return `${JSON.stringify(Object.values(def.entries))}.includes(v)`
    case 'nullable':
      return `v === null || ${fn(def.innerType)}(v)`
    case 'optional':
      return `v === undefined || ${fn(def.innerType)}(v)`
    case 'union':
      return def.options.map((o: Schema) => `${fn(o)}(v)`).join(' || ')
    case 'array':
      return all([
        'Array.isArray(v)',
        ...(def.checks ?? []).map((c: Schema) => lengthCheck(c, unsupported)),
        `v.every((e) => ${fn(def.element)}(e))`,
      ])
    case 'record':
      return recordCheck(def, fn, unsupported)
    case 'object':
      return objectCheck(def, fn, unsupported)
    default:
      return unsupported(`a ${def.type}`)
  }
}

const all = (parts: string[]) => parts.map((p) => `(${p})`).join(' && ')

function lengthCheck(check: Schema, unsupported: (what: string) => never): string {
  const c = check._zod.def
  if (c.check === 'min_length') return `v.length >= ${Number(c.minimum)}`
  if (c.check === 'max_length') return `v.length <= ${Number(c.maximum)}`
  if (c.check === 'length_equals') return `v.length === ${Number(c.length)}`
  if (c.check === 'string_format' && c.format === 'regex' && c.pattern instanceof RegExp && !c.pattern.global)
    return `${c.pattern.toString()}.test(v)`
  return unsupported(`a ${c.check}${c.format ? ` (${c.format})` : ''} check`)
}

function numberCheck(check: Schema, unsupported: (what: string) => never): string {
  const c = check._zod.def
  if (c.check === 'number_format' && c.format === 'safeint') return 'Number.isSafeInteger(v)'
  if (c.check === 'multiple_of' && c.value === 1) return 'Number.isInteger(v)'
  if (c.check === 'greater_than' && typeof c.value === 'number')
    return `v ${c.inclusive ? '>=' : '>'} ${c.value}`
  if (c.check === 'less_than' && typeof c.value === 'number')
    return `v ${c.inclusive ? '<=' : '<'} ${c.value}`
  return unsupported(`a ${c.check}${c.format ? ` (${c.format})` : ''} check`)
}

function recordCheck(def: Def, fn: (s: Schema) => string, unsupported: (what: string) => never): string {
  const key = def.keyType._zod.def
  if (key.type !== 'string' || (key.checks ?? []).length > 0)
    unsupported('a record whose keys are not any string')
  return `plain(v) && Object.values(v).every((e) => ${fn(def.valueType)}(e))`
}

/**
 * Every field the shape names: a required one present and valid, an optional one absent or valid;
 * with no catchall (zod strips unknown keys) or an unknown one (kept), other keys are free; a
 * strict object (catchall never) allows none.
 */
function objectCheck(def: Def, fn: (s: Schema) => string, unsupported: (what: string) => never): string {
  const catchall = def.catchall?._zod.def.type
  if (catchall !== undefined && catchall !== 'unknown' && catchall !== 'any' && catchall !== 'never')
    unsupported(`an object whose other keys are ${catchall}`)
  const fields = Object.entries(def.shape as Record<string, Schema>).map(([key, field]) => {
    const k = JSON.stringify(key)
    if (field._zod.def.type === 'optional')
      return `(!own(v, ${k}) || ${fn(field._zod.def.innerType)}(v[${k}]))`
    return `(own(v, ${k}) && ${fn(field)}(v[${k}]))`
  })
  const strict =
    catchall === 'never'
      ? [`Object.keys(v).every((k) => ${JSON.stringify(Object.keys(def.shape))}.includes(k))`]
      : []
  return all(['plain(v)', ...fields, ...strict])
}
