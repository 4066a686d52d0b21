import {type ChildProcess, spawn} from 'node:child_process'
import {accessSync, constants} from 'node:fs'
import {delimiter, join} from 'node:path'
import type {Env, IOStreams, OutputStream} from './io.js'

/** What runs the pager when neither PAYCTL_PAGER nor PAGER is set: quits when the output fits. */
export const DEFAULT_PAGER = 'less -FRX'

/** The pager to run and the environment to run it in. */
export interface PagerChoice {
  command: string
  env: Env
}

/**
 * The pager the user chose, as git and gh choose one: PAYCTL_PAGER, then PAGER, then `less -FRX`;
 * the first of the two that is set decides, and set empty or to `cat` it turns paging off. `less`
 * gets LESS=FRX (and `lv`, LV=-c) unless the user set those, as git gives them.
 */
export function choosePager(env: Env): PagerChoice | undefined {
  const command = (env.PAYCTL_PAGER ?? env.PAGER ?? DEFAULT_PAGER).trim()
  if (command === '' || command === 'cat') return undefined
  return {command, env: {...env, LESS: env.LESS ?? 'FRX', LV: env.LV ?? '-c'}}
}

/**
 * The program of a pager given as plain words (`less -R`, `most`) when it is on no directory of
 * PATH: what to name in a warning rather than run. A command of the shell's own syntax (quotes,
 * redirections, variables) is left to the shell.
 */
export function missingProgram(command: string, env: Env): string | undefined {
  if (/[^\w\s./+=:,@%-]/.test(command)) return undefined
  const program = command.split(/\s+/)[0] ?? ''
  const candidates = program.includes('/')
    ? [program]
    : (env.PATH ?? '').split(delimiter).map((dir) => join(dir || '.', program))
  const runnable = (path: string) => {
    try {
      accessSync(path, constants.X_OK)
      return true
    } catch {
      return false
    }
  }
  return candidates.some(runnable) ? undefined : program
}

/** A running pager: what the command writes goes to it; stop() ends its input and waits for it. */
export interface Pager {
  readonly output: OutputStream
  /** End the pager's input and wait until the user leaves it (at once if it has gone). */
  stop(): Promise<void>
}

/**
 * Start `choice` with `sh -c`, its output and errors the terminal `out` and `err` write to, and
 * give the stream that feeds it, which looks to a command as `out` does (a terminal of its width
 * and colours: `less -R` passes colours on). When the pager goes before its input ends (the user
 * quit), writing stops and the newest onReaderGone handler is called, else `gone`.
 */
export function startPager(
  choice: PagerChoice,
  out: OutputStream & {fd: number},
  err: {fd?: number | undefined},
  gone: () => void,
): Pager {
  const child = spawn('sh', ['-c', choice.command], {
    stdio: ['pipe', out.fd, err.fd ?? 'inherit'],
    env: choice.env as NodeJS.ProcessEnv,
  })
  const exited = new Promise<void>((resolve) => {
    child.once('close', () => resolve())
    child.once('error', () => resolve())
  })
  const handlers: (() => void)[] = []
  let stopping = false
  let left = false
  const leave = () => {
    if (left || stopping) return
    left = true
    ;(handlers.at(-1) ?? gone)()
  }
  child.once('exit', leave)
  child.once('error', leave)
  // Writing to a pager that has gone fails with EPIPE: the same as its leaving.
  child.stdin?.on('error', leave)
  return {
    output: pagerOutput(out, child, handlers, () => left),
    async stop() {
      stopping = true
      child.stdin?.end()
      await exited
    },
  }
}

function pagerOutput(
  out: OutputStream,
  child: ChildProcess,
  handlers: (() => void)[],
  left: () => boolean,
): OutputStream {
  const input = child.stdin as NodeJS.WritableStream & {destroyed: boolean; writableEnded: boolean}
  const closed = () => left() || input.destroyed || input.writableEnded
  return {
    stream: input,
    isTTY: out.isTTY,
    columns: out.columns,
    width: out.width,
    colour: out.colour,
    get closed() {
      return closed()
    },
    write(text, done) {
      if (closed()) {
        done?.()
        return true
      }
      return input.write(text, done)
    },
    onReaderGone(handler) {
      handlers.push(handler)
      return () => {
        const at = handlers.lastIndexOf(handler)
        if (at >= 0) handlers.splice(at, 1)
      }
    },
  }
}

/**
 * Streams whose stdout starts `start()` on the first write, and then writes to what it gave (a
 * pager's input), or to the stdout of `io` when it gave nothing. Deciding on the first write
 * leaves what comes before it (a spinner on stderr) on the terminal, not in the pager.
 */
export function pagedOnFirstWrite(io: IOStreams, start: () => OutputStream | undefined): IOStreams {
  let target: OutputStream | undefined
  const to = () => {
    target ??= start() ?? io.out
    return target
  }
  const now = () => target ?? io.out
  const out: OutputStream = {
    get stream() {
      return now().stream
    },
    get fd() {
      return io.out.fd
    },
    get isTTY() {
      return io.out.isTTY
    },
    get columns() {
      return io.out.columns
    },
    get width() {
      return io.out.width
    },
    get colour() {
      return io.out.colour
    },
    get closed() {
      return now().closed
    },
    write: (text, done) => to().write(text, done),
    // A pager's leaving is told through startPager's `gone`: the commands that page take over
    // no reader's leaving themselves.
    onReaderGone: (gone) => io.out.onReaderGone(gone),
  }
  return {in: io.in, err: io.err, out}
}
