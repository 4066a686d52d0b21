import {usageError} from './errors.js'

/** What places an operation: its path template, below `/v1` unless `versioned` is false. */
export interface OperationPath {
  path: string
  versioned?: boolean
}

/**
 * The URL of an operation under `root` (a base URL, without `/v1`), each `{param}` of its path
 * filled from `params`, percent-encoded. The client and the fast path of bin/run.js build it here
 * alike, so that the fast path sends what the client would.
 */
export function operationUrl(root: string, op: OperationPath, params: Record<string, string>): URL {
  const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name]
    // An empty id would name another route (`/wallets/` is the list of wallets).
    if (value === undefined || value.trim() === '')
      throw usageError(`the ${name} must not be empty`, 'MISSING_ARGUMENT', {name})
    return encodeURIComponent(value)
  })
  return new URL(`${root}${op.versioned === false ? '' : '/v1'}${path}`)
}
