import {execFileSync, spawn} from 'node:child_process'
import {join} from 'node:path'
import {stripVTControlCharacters} from 'node:util'
import {cliEnv, ROOT} from './cli.js'

const BIN = join(ROOT, 'bin', 'run.js')

/** Whether `script` (util-linux) is here to give payctl a real pseudo-terminal. */
export const hasScript = (() => {
  try {
    execFileSync('script', ['--version'], {stdio: 'ignore'})
    return true
  } catch {
    return false
  }
})()

/**
 * Run payctl in a real pseudo-terminal and answer its prompts: each step waits for a text on the
 * screen, then types its keys. Resolves with the screen text once payctl exits. No pager (PAGER=cat):
 * the prompts are what is under test. `exec` leaves payctl alone in the terminal's foreground:
 * under a shell that stays (dash, /bin/sh, which `script` runs where SHELL is unset), Ctrl-C would
 * end the shell with 130 whatever payctl did. SHELL is pinned so every machine runs the same.
 */
export function converse(
  args: string[],
  steps: [RegExp, string][],
  opts: {configDir: string; env?: Record<string, string | undefined>},
): Promise<{screen: string; code: number | null}> {
  const command = [process.execPath, BIN, ...args].map((a) => `'${a}'`).join(' ')
  const child = spawn('script', ['-qec', `stty cols 120; exec ${command}`, '/dev/null'], {
    env: cliEnv(opts.configDir, {CI: undefined, PAGER: 'cat', SHELL: '/bin/sh', ...opts.env}),
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  let screen = ''
  let step = 0
  let seenUpTo = 0
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`stuck at step ${step}:\n${stripVTControlCharacters(screen)}`))
    }, 60_000)
    child.stdout.on('data', (c: Buffer) => {
      screen += c.toString()
      const plain = stripVTControlCharacters(screen)
      while (step < steps.length && steps[step]![0].test(plain.slice(seenUpTo))) {
        seenUpTo = plain.length
        child.stdin.write(steps[step]![1])
        step++
      }
    })
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({screen: stripVTControlCharacters(screen), code})
    })
  })
}

/**
 * Run payctl in a real pseudo-terminal of `cols` columns with nothing to answer (PAGER=cat): its
 * exit code and the lines it showed, styles and spinner frames taken out.
 */
export function screenOf(
  args: string[],
  opts: {cols: number; configDir: string; env?: Record<string, string | undefined>},
): Promise<{lines: string[]; code: number | null}> {
  const command = [process.execPath, BIN, ...args].map((a) => `'${a}'`).join(' ')
  const child = spawn('script', ['-qec', `stty cols ${opts.cols}; exec ${command}`, '/dev/null'], {
    env: cliEnv(opts.configDir, {CI: undefined, PAGER: 'cat', SHELL: '/bin/sh', ...opts.env}),
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  child.stdout.on('data', (c: Buffer) => {
    out += c.toString()
  })
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`payctl ${args.join(' ')} did not end:\n${stripVTControlCharacters(out)}`))
    }, 60_000)
    child.on('close', (code) => {
      clearTimeout(timer)
      // A spinner redraws its line from the first column: each frame a line of its own here.
      const plain = stripVTControlCharacters(
        out.replace(new RegExp(`${String.fromCharCode(27)}\\[\\d*G`, 'g'), '\n'),
      )
      const lines = plain
        .split(/\r?\n/)
        .map((l) => l.replace(/\r/g, ''))
        .filter((l) => l.trim() !== '')
      resolve({lines, code})
    })
  })
}
