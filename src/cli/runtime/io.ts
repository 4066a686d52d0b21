import {readFileSync} from 'node:fs'
import {PassThrough, Writable} from 'node:stream'

/** Environment variables, as a command reads them: the process's, or the ones a test gives a run. */
export type Env = Readonly<Record<string, string | undefined>>

/** Where a command's output goes, and what payctl needs to know of it to choose a form. */
export interface OutputStream {
  /** The stream itself, for what writes to one of its own (a spinner, a prompt). */
  readonly stream: NodeJS.WritableStream
  readonly isTTY: boolean
  /** The terminal's width; undefined when it is no terminal or reports none. */
  readonly columns: number | undefined
  /**
   * The width to lay text out to in a terminal (undefined when it is none): its own, or, where it
   * reports 0 columns (a pseudo-terminal given no size, as `script` makes one), `COLUMNS`, then 80.
   */
  readonly width: number | undefined
  /** Whether colour codes belong in it (see colourWanted). */
  readonly colour: boolean
  /** The file descriptor of a process's own stream, which a pager it starts writes to; none in a test's run. */
  readonly fd?: number | undefined
  /** Whether its reader went away: nothing written now arrives. */
  readonly closed: boolean
  /** Text, or bytes passed on as they are (a command's output). */
  write(text: string | Uint8Array, done?: (err?: Error | null) => void): boolean
  /**
   * Call `gone` when its reader goes away, instead of what would happen then otherwise (a process
   * ends quietly: main.ts), until the returned removal is called.
   */
  onReaderGone(gone: () => void): () => void
}

export interface InputStream {
  readonly stream: NodeJS.ReadableStream
  readonly isTTY: boolean
  /** All of it, up to its end: a body or a secret given as `-`. */
  readAll(): Buffer
}

/**
 * A command's standard streams, as gh's iostreams: commands print through these, never the
 * process's, so that a run in a test process gets streams of its own (testIO).
 */
export interface IOStreams {
  readonly in: InputStream
  readonly out: OutputStream
  readonly err: OutputStream
}

/**
 * Colour as Node's styleText decides it for a stream, but under the environment given: FORCE_COLOR
 * wins; otherwise a terminal, with colours, unless NO_COLOR, NODE_DISABLE_COLORS or TERM=dumb.
 */
export function colourWanted(stream: {isTTY?: boolean}, env: Env): boolean {
  // getColorDepth reads nothing of the stream it is called on, only the environment given.
  // node:tty is taken only when asked: a piped run needs none of it.
  const depth = () =>
    process.getBuiltinModule('node:tty').WriteStream.prototype.getColorDepth.call(stream, env)
  if (env.FORCE_COLOR !== undefined) return depth() > 2
  return stream.isTTY === true && depth() > 2
}

/** `COLUMNS`, when it is a width: a whole number above 0. */
function widthFromEnv(env: Env): number | undefined {
  const columns = env.COLUMNS?.trim() ?? ''
  return /^\d+$/.test(columns) && Number(columns) > 0 ? Number(columns) : undefined
}

function systemOutput(stream: NodeJS.WriteStream, env: Env): OutputStream {
  return {
    stream,
    fd: (stream as {fd?: number}).fd,
    get isTTY() {
      return stream.isTTY === true
    },
    get columns() {
      return stream.isTTY && stream.columns ? stream.columns : undefined
    },
    get width() {
      if (stream.isTTY !== true) return undefined
      return stream.columns || widthFromEnv(env) || 80
    },
    get colour() {
      return colourWanted(stream, env)
    },
    get closed() {
      return stream.destroyed
    },
    write: (text, done) => stream.write(text, done),
    onReaderGone: (gone) => onReaderGone(stream, gone),
  }
}

/**
 * The process's own streams: the one place payctl binds to process.stdin, stdout and stderr
 * (`main` uses it for a process; a test's in-process run gets testIO instead).
 */
export function systemIO(env: Env = process.env): IOStreams {
  return {
    in: {
      // Read only when used: opening stdin loads Node's file streams and more, which a command
      // that never reads it should not pay for.
      get stream() {
        return process.stdin
      },
      get isTTY() {
        return process.stdin.isTTY === true
      },
      readAll: () => readFileSync(0),
    },
    out: systemOutput(process.stdout, env),
    err: systemOutput(process.stderr, env),
  }
}

/** For each stream of the process, what to do when its reader goes away: the newest one given. */
const whenGone = new WeakMap<NodeJS.WriteStream, (() => void)[]>()

/**
 * Call `gone` when the reader of the process's `stream` goes away (EPIPE), instead of failing on the
 * write and instead of what was given before it, until the returned removal is called.
 */
function onReaderGone(stream: NodeJS.WriteStream, gone: () => void): () => void {
  const handlers = whenGone.get(stream) ?? listenForReaderGone(stream)
  handlers.push(gone)
  return () => {
    const at = handlers.lastIndexOf(gone)
    if (at >= 0) handlers.splice(at, 1)
  }
}

function listenForReaderGone(stream: NodeJS.WriteStream): (() => void)[] {
  const handlers: (() => void)[] = []
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err
    handlers.at(-1)?.()
  })
  whenGone.set(stream, handlers)
  return handlers
}

/**
 * When the reader of the process's stdout goes away (`payctl --help | head -3`), call `gone`
 * instead of failing on the write: nothing more can be shown. A command that must first end what it
 * started (`sandbox run`) takes that over for a while through its stdout's onReaderGone.
 */
export function onStdoutClosed(gone: () => void): void {
  onReaderGone(process.stdout, gone)
}

/**
 * Start recording what the process writes to stdout (the text) and stderr (how much), besides
 * writing it: what a run that prints help printed, to keep (fast-path/help-cache.ts). The returned function
 * stops recording and says what was written.
 */
export function recordOutput(): () => {stdout: string; stderr: number} {
  let stdout = ''
  let stderr = 0
  const restore = [
    tap(process.stdout, (chunk) => {
      stdout += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString()
    }),
    tap(process.stderr, (chunk) => {
      stderr += chunk.length
    }),
  ]
  return () => {
    for (const undo of restore) undo()
    return {stdout, stderr}
  }
}

/** Call `seen` with every chunk written to `stream`, until the returned function is called. */
function tap(stream: NodeJS.WriteStream, seen: (chunk: string | Uint8Array) => void): () => void {
  const write = stream.write
  stream.write = function (this: NodeJS.WriteStream, chunk: string | Uint8Array, ...rest: unknown[]) {
    seen(chunk)
    return (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest)
  } as typeof stream.write
  return () => {
    stream.write = write
  }
}

export interface TestIOOptions {
  /** What stdin holds; none by default (an empty stdin, as `runCli` gives a process). */
  input?: string | undefined
  stdinTTY?: boolean
  stdoutTTY?: boolean
  stderrTTY?: boolean
  /** The terminal width reported for a TTY output. */
  columns?: number
  colour?: boolean
}

/** Test streams and what was written to them. */
export interface TestIO {
  io: IOStreams
  stdout(): string
  stderr(): string
}

function testOutput(isTTY: boolean, columns: number | undefined, colour: boolean) {
  let text = ''
  const stream = new Writable({
    decodeStrings: false,
    write(chunk: string | Buffer, _encoding, callback) {
      text += typeof chunk === 'string' ? chunk : chunk.toString()
      callback()
    },
  })
  // A spinner or a prompt asks the stream itself whether it is a terminal and how wide.
  Object.assign(stream, {isTTY, columns})
  const output: OutputStream = {
    stream,
    isTTY,
    columns: isTTY ? columns : undefined,
    width: isTTY ? columns || 80 : undefined,
    colour,
    get closed() {
      return stream.destroyed
    },
    write: (chunk, done) => stream.write(chunk, done),
    onReaderGone: (gone) => {
      stream.once('close', gone)
      return () => stream.off('close', gone)
    },
  }
  return {output, text: () => text}
}

/** Streams of a run of its own, as gh's iostreams.Test(): none is a terminal unless said. */
export function testIO(opts: TestIOOptions = {}): TestIO {
  const out = testOutput(opts.stdoutTTY ?? false, opts.columns ?? 80, opts.colour ?? false)
  const err = testOutput(opts.stderrTTY ?? false, opts.columns ?? 80, opts.colour ?? false)
  const input = Buffer.from(opts.input ?? '')
  const stdin = new PassThrough()
  stdin.end(input)
  Object.assign(stdin, {isTTY: opts.stdinTTY ?? false})
  return {
    io: {
      in: {stream: stdin, isTTY: opts.stdinTTY ?? false, readAll: () => input},
      out: out.output,
      err: err.output,
    },
    stdout: out.text,
    stderr: err.text,
  }
}
