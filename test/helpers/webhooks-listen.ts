import {type ChildProcess, spawn} from 'node:child_process'
import {join} from 'node:path'
import {cliEnv, ROOT} from './cli.js'

/** One JSON line of `payctl webhooks listen --json`. */
// biome-ignore lint/suspicious/noExplicitAny: lines are checked by expect(), not by types
export type ListenLine = Record<string, any>

/** A running `payctl webhooks listen --json` process, its stdout read line by line. */
export interface ListenProcess {
  lines: ListenLine[]
  stderr: () => string
  /** Resolves with the first line (already seen or to come) that matches. */
  waitFor(match: (line: ListenLine) => boolean, timeoutMs?: number, what?: string): Promise<ListenLine>
  /** Resolves once `count` lines match. */
  waitForCount(match: (line: ListenLine) => boolean, count: number, timeoutMs?: number): Promise<ListenLine[]>
  kill(signal: NodeJS.Signals): void
  exited: Promise<number | null>
  child: ChildProcess
}

export function startListen(
  args: string[],
  opts: {configDir: string; env?: Record<string, string | undefined>},
): ListenProcess {
  const child = spawn(
    process.execPath,
    [join(ROOT, 'bin', 'run.js'), 'webhooks', 'listen', '--json', ...args],
    {
      env: cliEnv(opts.configDir, opts.env),
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  const lines: ListenLine[] = []
  const watchers = new Set<() => void>()
  let buffered = ''
  let stderr = ''
  child.stdout!.on('data', (chunk: Buffer) => {
    buffered += chunk.toString()
    let nl = buffered.indexOf('\n')
    while (nl >= 0) {
      const text = buffered.slice(0, nl)
      buffered = buffered.slice(nl + 1)
      if (text.trim() !== '') lines.push(JSON.parse(text) as ListenLine)
      nl = buffered.indexOf('\n')
    }
    for (const w of [...watchers]) w()
  })
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const waitForCount = (match: (line: ListenLine) => boolean, count: number, timeoutMs = 60_000) =>
    new Promise<ListenLine[]>((resolve, reject) => {
      const check = () => {
        const found = lines.filter(match)
        if (found.length < count) return
        watchers.delete(check)
        clearTimeout(timer)
        resolve(found)
      }
      const timer = setTimeout(() => {
        watchers.delete(check)
        reject(
          new Error(
            `listen printed ${lines.filter(match).length} of ${count} matching lines\nstdout:\n${lines.map((l) => JSON.stringify(l)).join('\n')}\nstderr:\n${stderr}`,
          ),
        )
      }, timeoutMs)
      watchers.add(check)
      check()
    })
  return {
    lines,
    stderr: () => stderr,
    waitFor: async (match, timeoutMs, _what) => (await waitForCount(match, 1, timeoutMs))[0]!,
    waitForCount,
    kill: (signal) => child.kill(signal),
    exited,
    child,
  }
}
