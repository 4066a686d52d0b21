import {type ChildProcess, spawn} from 'node:child_process'
import {constants} from 'node:os'
import type {Readable} from 'node:stream'
import type {IOStreams, OutputStream} from '../runtime/io.js'
import type {Runtime} from '../runtime/runtime.js'

/**
 * The command of `sandbox run` (and each `payctl seed` before it): run to its end with its output
 * passed on byte for byte, and never left running without payctl (docs/sandbox.md#one-shot-sandboxes).
 */

// Process groups are POSIX's; on Windows the command runs as a plain child.
const POSIX = process.platform !== 'win32'

/**
 * How the command is ended when payctl cannot do it itself. The command runs in a process group (a
 * session, as Node starts one) of its own, so that it is ended with everything it started. Beside it
 * runs this watcher, a `sh` in a session of its own (a Ctrl-C or hang-up of the terminal does not
 * reach it), reading a pipe that only payctl holds open: started before the command, and told its
 * group the moment it has one, so that payctl never runs a command nobody watches. When the command ends, payctl writes `done`
 * and the watcher exits. When payctl dies first, however it dies (kill -9, a crash, the OOM killer),
 * the kernel closes its end of the pipe, and the watcher, reading nothing, sends SIGTERM to the
 * command's group, then SIGKILL to whatever of it is left 5 s later. When payctl ends the group
 * itself (its output gone), it says `ending`: the watcher then only sends the SIGKILL. The end of a
 * pipe is what every POSIX system reports of a process that died, whatever killed it: no polling of
 * pids, no Linux-only parent-death signal, nothing to install.
 */
const WATCHER = [
  'read group || exit 0',
  'read said',
  '[ "$said" = done ] && exit 0',
  '[ "$said" = ending ] || kill -TERM "-$group" 2>/dev/null || exit 0',
  'n=0',
  'while [ $n -lt 50 ] && kill -0 "-$group" 2>/dev/null; do sleep 0.1; n=$((n + 1)); done',
  'kill -KILL "-$group" 2>/dev/null',
].join('\n')

/**
 * A watcher, started before the command so that it is already there when payctl could die: told the
 * command's process group as soon as it has one, then when the group has ended or is being ended.
 */
function startWatcher(): {over: (group: number) => void; done: () => void; ending: () => void} {
  const watcher = spawn('/bin/sh', ['-c', WATCHER, 'payctl-watch'], {
    detached: true,
    stdio: ['pipe', 'ignore', 'ignore'],
  })
  // Without a watcher (no /bin/sh), payctl still ends the command itself whenever it can.
  watcher.on('error', () => undefined)
  watcher.stdin!.on('error', () => undefined)
  // payctl does not wait for it: it exits at once, or outlives payctl to end the command.
  watcher.unref()
  return {
    over: (group) => watcher.stdin!.write(`${group}\n`),
    done: () => watcher.stdin!.end('done\n'),
    ending: () => watcher.stdin!.end('ending\n'),
  }
}

/** Send `signal` to the command and all it started (to it alone where there are no groups). */
function signal(child: ChildProcess, name: NodeJS.Signals): void {
  if (child.pid === undefined) return
  try {
    process.kill(POSIX ? -child.pid : child.pid, name)
  } catch {
    // Ended already.
  }
}

/** Pass `from`'s bytes on to `to` untouched, as they come, held back while `to` is full. */
function passOn(from: Readable, to: OutputStream): void {
  from.on('data', (chunk: Buffer) => {
    if (to.closed || to.write(chunk)) return
    from.pause()
    to.stream.once('drain', () => from.resume())
  })
}

/** The exit status a shell reports of a command that signal `name` ended. */
const signalled = (name: NodeJS.Signals): number => 128 + (constants.signals[name] ?? 0)

/**
 * Run `command` to its end, its output passed on; Ctrl-C and SIGTERM are passed to it. Resolves
 * with its exit code: 128 + the signal's number when a signal ended it, 127 when it could not start.
 * When the reader of payctl's stdout or stderr goes away (`payctl sandbox run -- cmd | head -1`),
 * nothing more of it can be shown: the command is ended with all it started, and the run resolves
 * with 141, as a shell reports a command that SIGPIPE ended.
 */
export function runToEnd(
  command: readonly string[],
  env: NodeJS.ProcessEnv,
  io: IOStreams,
  runtime: Pick<Runtime, 'onSignal'>,
): Promise<number> {
  return new Promise((done) => {
    const watcher = POSIX ? startWatcher() : undefined
    const child = spawn(command[0]!, command.slice(1), {
      env,
      stdio: ['inherit', 'pipe', 'pipe'],
      detached: POSIX,
    })
    if (child.pid === undefined) watcher?.done()
    else watcher?.over(child.pid)
    passOn(child.stdout, io.out)
    passOn(child.stderr, io.err)
    let readerGone = false
    const gone = () => {
      if (readerGone) return
      readerGone = true
      child.stdout.destroy()
      child.stderr.destroy()
      signal(child, 'SIGTERM')
      watcher?.ending()
    }
    const removals = [
      ...(['SIGINT', 'SIGTERM'] as const).map((name) => runtime.onSignal(name, () => signal(child, name))),
      io.out.onReaderGone(gone),
      io.err.onReaderGone(gone),
    ]
    const finish = (code: number) => {
      for (const remove of removals) remove()
      done(code)
    }
    child.once('error', (err) => {
      io.err.write(`payctl: ${command[0]}: ${err.message}\n`)
      finish(127)
    })
    child.once('close', (code, name) => {
      if (readerGone) return finish(signalled('SIGPIPE'))
      watcher?.done()
      finish(name === null ? (code ?? 1) : signalled(name))
    })
  })
}
