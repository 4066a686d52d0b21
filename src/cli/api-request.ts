import {readFileSync} from 'node:fs'
import {usageError} from '../core/index.js'
import type {IOStreams} from './runtime/io.js'

/** What `payctl api` sends besides its method and path: the body and headers its flags give. */

/** The --data body: text, `@file`, or `-` for stdin; JSON in each case. */
export function requestBody(data: string | undefined, io: IOStreams): string | undefined {
  if (data === undefined) return undefined
  let text = data
  if (data === '-') text = io.in.readAll().toString('utf8')
  else if (data.startsWith('@')) {
    try {
      text = readFileSync(data.slice(1), 'utf8')
    } catch (err) {
      throw usageError(`cannot read ${data.slice(1)}: ${(err as Error).message}`, 'INVALID_FLAG')
    }
  }
  try {
    JSON.parse(text)
  } catch (err) {
    throw usageError(`--data is not valid JSON: ${(err as Error).message}`, 'INVALID_FLAG')
  }
  return text
}

/** The --header values, `Name: value` each, as headers. */
export function requestHeaders(headers: string[] | undefined): Record<string, string> {
  return Object.fromEntries((headers ?? []).map(parseHeader))
}

function parseHeader(h: string): [string, string] {
  const i = h.indexOf(':')
  if (i <= 0) throw usageError(`--header wants "Name: value", got "${h}"`, 'INVALID_FLAG')
  const [name, value] = [h.slice(0, i).trim(), h.slice(i + 1).trim()]
  // What HTTP allows in a header; anything else would fail inside the HTTP client as UNEXPECTED.
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name) || !/^[\t\x20-\x7e\x80-\xff]*$/.test(value))
    throw usageError(`--header "${h}" has characters an HTTP header cannot carry`, 'INVALID_FLAG')
  return [name, value]
}
