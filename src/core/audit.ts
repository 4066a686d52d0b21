import {closeSync, mkdirSync, readFileSync, writeSync} from 'node:fs'
import {join} from 'node:path'
import type {MutationRecord} from './client.js'
import {assertConfigDir, configDir, openPrivateAppend} from './config-dir.js'
import {isSecretHeader, redactText} from './redact.js'

/** One mutating command, as the local audit log keeps it. Never a body, never a secret. */
export interface AuditEntry {
  time: string
  profile: string
  environment: string
  baseUrl: string
  /** The command and its arguments, with secret values replaced. */
  command: string
  outcome: 'ok' | 'error'
  code?: string | undefined
  exitCode: number
  /** Mutations sent: the first 20 in full, and how many in all. */
  requests: MutationRecord[]
  requestCount: number
  /** What the command left in progress when it was interrupted, e.g. the transaction it created. */
  note?: string | undefined
}

const SECRET_FLAGS = new Set(['--api-secret', '--secret-key', '--secret', '--password', '--token'])
const HEADER_FLAGS = new Set(['-H', '--header'])

/** A `Name: value` header argument with its value replaced when the name says it is a credential. */
function redactHeaderArg(header: string): string {
  const colon = header.indexOf(':')
  if (colon > 0 && isSecretHeader(header.slice(0, colon))) return `${header.slice(0, colon)}: [REDACTED]`
  return redactText(header)
}

/**
 * The command line with the values of secret flags and of credential headers (`-H 'Authorization:
 * …'`, in every spelling oclif accepts) replaced, and credential-shaped text redacted.
 */
export function redactArgv(argv: string[]): string {
  const out: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? ''
    const eq = arg.indexOf('=')
    const name = eq > 0 ? arg.slice(0, eq) : arg
    if (eq > 0 && SECRET_FLAGS.has(name)) out.push(`${name}=[REDACTED]`)
    else if (SECRET_FLAGS.has(arg) && i + 1 < argv.length) {
      out.push(arg, argv[i + 1] === '-' ? '-' : '[REDACTED]')
      i++
    } else if (HEADER_FLAGS.has(arg) && i + 1 < argv.length) {
      out.push(arg, redactHeaderArg(argv[i + 1] ?? ''))
      i++
    } else if (eq > 0 && HEADER_FLAGS.has(name)) out.push(`${name}=${redactHeaderArg(arg.slice(eq + 1))}`)
    else if (/^-H[^=]/.test(arg)) out.push(`-H${redactHeaderArg(arg.slice(2))}`)
    else out.push(redactText(arg))
  }
  return out.map((a) => (/\s/.test(a) ? JSON.stringify(a) : a)).join(' ')
}

/**
 * The command line with the value of `flag` (`--user x` or `--user=x`, before any `--`) replaced
 * by `value`: what a command logs instead of data it was given, such as a customer's email.
 */
export function withFlagValue(argv: readonly string[], flag: string, value: string): string[] {
  const out = [...argv]
  for (let i = 0; i < out.length; i++) {
    const arg = out[i]!
    if (arg === '--') break
    if (arg === flag && i + 1 < out.length) out[++i] = value
    else if (arg.startsWith(`${flag}=`)) out[i] = `${flag}=${value}`
  }
  return out
}

/** An append-only NDJSON file in the config dir, mode 0600. */
export class AuditLog {
  readonly path: string

  constructor(dir: string = configDir()) {
    this.path = join(dir, 'audit.log')
  }

  /**
   * Add an entry. Never written through a symbolic link planted at the log's name: what is there
   * instead of a file is replaced by a new log, and the answer says what it was.
   */
  append(entry: AuditEntry): {replaced: string | undefined} {
    mkdirSync(join(this.path, '..'), {recursive: true, mode: 0o700})
    assertConfigDir(join(this.path, '..'))
    const {fd, replaced} = openPrivateAppend(this.path)
    try {
      writeSync(fd, `${JSON.stringify(entry)}\n`)
    } finally {
      closeSync(fd)
    }
    return {replaced}
  }

  /** Entries, newest first. */
  read(limit = Number.POSITIVE_INFINITY): AuditEntry[] {
    let text: string
    try {
      text = readFileSync(this.path, 'utf8')
    } catch {
      return []
    }
    const entries: AuditEntry[] = []
    const lines = text.split('\n')
    for (let i = lines.length - 1; i >= 0 && entries.length < limit; i--) {
      const line = lines[i]?.trim()
      if (!line) continue
      try {
        entries.push(JSON.parse(line) as AuditEntry)
      } catch {
        // a line cut short by a crash: skip it
      }
    }
    return entries
  }
}
