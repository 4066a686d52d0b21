import {type ChildProcess, spawn} from 'node:child_process'
import {createHash, randomBytes} from 'node:crypto'
import {once} from 'node:events'
import {cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, test} from 'vitest'
import {cliEnv, cliFor, payctl, ROOT, runCli, tempConfigDir} from '../helpers/cli.js'
import {type LocalSandbox, startLocalSandbox} from '../helpers/local-sandbox.js'
import {startSandboxProcess} from '../helpers/sandbox.js'

const BIN = join(ROOT, 'bin', 'run.js')

/** A shell command that runs this checkout's payctl with the node running the tests. */
const PAYCTL = `"${process.execPath}" "${BIN}"`

describe('sandbox run: a one-shot sandbox around a command', () => {
  const config = tempConfigDir()
  let snapshot: string
  let source: LocalSandbox

  beforeAll(async () => {
    // A seeded state, saved once as a file: what a CI cache keeps. The sandbox it is saved from is
    // served here, sealing it with the config dir's key as `sandbox start` would.
    source = await startLocalSandbox({}, {configDir: config.dir})
    const cli = cliFor(config.dir)
    const made = await cli(
      'users',
      'create',
      '--email',
      'seeded@example.test',
      '--first-name',
      'S',
      '--last-name',
      'D',
    )
    expect(made.exitCode, made.stderr).toBe(0)
    snapshot = join(config.dir, 'seeded.snapshot')
    const saved = await cli('sandbox', 'snapshot', 'save', 'seeded', '--file', snapshot)
    expect(saved.exitCode, saved.stderr).toBe(0)
  })
  afterAll(async () => {
    await source.stop()
    config.cleanup()
  })

  test("the command gets the sandbox, restored and --seed'ed before it runs, in its environment, payctl's and its own; payctl exits with its code; the sandbox stops", async () => {
    const fixture = join(config.dir, 'one-user.yaml')
    writeFileSync(
      fixture,
      'version: 1\nname: one\nusers:\n  ada:\n    email: ada@example.test\n    first_name: Ada\n    last_name: Lovelace\n',
    )
    const script = [
      'echo "base=$PAYCTL_BASE_URL api=$PAYCTL_API_URL partner=$PAYCTL_PARTNER_ID"',
      `${PAYCTL} users list --json`,
      'curl -s -o /dev/null -w "%{http_code}\\n" "$PAYCTL_BASE_URL/_sandbox/health" || true',
      'exit 7',
    ].join('; ')
    const res = await runCli(
      ['sandbox', 'run', '--from-snapshot', snapshot, '--seed', fixture, '--', 'sh', '-c', script],
      {configDir: config.dir, timeoutMs: 60_000},
    )
    expect(res.exitCode, res.stderr).toBe(7)
    const base = /base=(http:\/\/127\.0\.0\.1:\d+) api=(\S+) partner=(partner_\w+)/.exec(res.stdout)
    expect(base, res.stdout).not.toBeNull()
    expect(base![2]).toBe(`${base![1]}/v1`)
    expect(base![1]).not.toBe(source.url)
    expect(res.stdout).toContain('seeded@example.test')
    expect(res.stdout).toContain('ada@example.test')
    // Stopped with the command: nothing listens there any more.
    await expect(fetch(`${base![1]}/_sandbox/health`)).rejects.toThrow()
  })

  test('twice at once on one machine: each run has its own port and state', async () => {
    const script = (email: string) =>
      `${PAYCTL} users create --email ${email} --first-name A --last-name B >/dev/null && ${PAYCTL} users list --json`
    const [one, two] = await Promise.all(
      ['one@example.test', 'two@example.test'].map((email) =>
        runCli(['sandbox', 'run', '--from-snapshot', snapshot, '--', 'sh', '-c', script(email)], {
          configDir: config.dir,
          timeoutMs: 60_000,
        }),
      ),
    )
    expect(one!.exitCode, one!.stderr).toBe(0)
    expect(two!.exitCode, two!.stderr).toBe(0)
    const emails = (out: string) =>
      (JSON.parse(out) as {users: {email: string}[]}).users.map((u) => u.email).sort()
    expect(emails(one!.stdout)).toEqual(['one@example.test', 'seeded@example.test'])
    expect(emails(two!.stdout)).toEqual(['seeded@example.test', 'two@example.test'])
    // The snapshot's sandbox of the config dir was never touched.
    const list = await payctl(['users', 'list', '--json'], {configDir: config.dir})
    expect(emails(list.stdout)).toEqual(['seeded@example.test'])
  })

  test('a command killed by a signal: payctl exits 128 + its number, and the sandbox stops', async () => {
    const res = await runCli(['sandbox', 'run', '--', 'sh', '-c', 'echo "$PAYCTL_BASE_URL"; kill -TERM $$'], {
      configDir: config.dir,
      timeoutMs: 60_000,
    })
    expect(res.exitCode, res.stderr).toBe(143)
    await expect(fetch(`${res.stdout.trim()}/_sandbox/health`)).rejects.toThrow()
  })
})

describe('--from-snapshot NAME: among the snapshots of the partner payctl acts for, no other', () => {
  const config = tempConfigDir()
  const data = join(config.dir, 'sandbox.db')
  let sandbox: {stop: () => Promise<void>; credentials: {partnerId: string}}
  let otherId: string
  const cli = (args: string[], env: Record<string, string> = {}) =>
    payctl(args, {configDir: config.dir, env, timeoutMs: 60_000})
  /**
   * `sandbox run` picking the snapshot, in this process (which snapshot it takes is no matter of
   * processes), its command a process as always: it says which partner it was given and lists the
   * users with the payctl inside.
   */
  const run = (args: string[], env: Record<string, string> = {}, configDir = config.dir) =>
    payctl(
      [
        'sandbox',
        'run',
        ...args,
        '--',
        'sh',
        '-c',
        `echo "partner=$PAYCTL_PARTNER_ID"; ${PAYCTL} users list --json`,
      ],
      {configDir, env, timeoutMs: 60_000},
    )

  beforeAll(async () => {
    // The operator's sandbox on the config dir's own data file, and a partner beside it that saves
    // snapshots of its own through the API, one of them under a name the operator uses too.
    sandbox = await startLocalSandbox({data}, {configDir: config.dir})
    const other = await cli(['sandbox', 'partners', 'create', 'other', '--json'])
    expect(other.exitCode, other.stderr).toBe(0)
    otherId = other.json<{partnerId: string}>().partnerId
    for (const [email, env, names] of [
      ['mine@example.test', {}, ['mine', 'shared']],
      ['theirs@example.test', {PAYCTL_PROFILE: 'other'}, ['theirs', 'shared']],
    ] as const) {
      const made = await cli(
        ['users', 'create', '--email', email, '--first-name', 'A', '--last-name', 'B'],
        env,
      )
      expect(made.exitCode, made.stderr).toBe(0)
      for (const name of names) {
        const saved = await cli(['sandbox', 'snapshot', 'save', name], env)
        expect(saved.exitCode, saved.stderr).toBe(0)
      }
    }
  })
  afterAll(async () => {
    await sandbox.stop()
    config.cleanup()
  })

  test("another partner's name is SNAPSHOT_NOT_FOUND, its credentials never handed to the command; a name both have is the caller's", async () => {
    const theirs = await run(['--from-snapshot', 'theirs'])
    expect(theirs.exitCode, theirs.stderr).toBe(2)
    expect(theirs.stderr).toContain('SNAPSHOT_NOT_FOUND')
    expect(theirs.stdout).not.toContain('partner=')

    const shared = await run(['--from-snapshot', 'shared'])
    expect(shared.exitCode, shared.stderr).toBe(0)
    expect(shared.stdout).toContain(`partner=${sandbox.credentials.partnerId}\n`)
    expect(shared.stdout).toContain('mine@example.test')
    expect(shared.stdout).not.toContain('theirs@example.test')

    // Acting as the other partner, its own are found.
    const asOther = await run(['--from-snapshot', 'theirs'], {PAYCTL_PROFILE: 'other'})
    expect(asOther.exitCode, asOther.stderr).toBe(0)
    expect(asOther.stdout).toContain(`partner=${otherId}\n`)
    expect(asOther.stdout).toContain('theirs@example.test')
  })

  test('with no profile yet, a name is nobody’s (a file’s path still is what it names)', async () => {
    const bare = tempConfigDir()
    try {
      cpSync(`${data}.snapshots`, join(bare.dir, 'sandbox.db.snapshots'), {recursive: true})
      const named = await run(['--from-snapshot', 'mine'], {}, bare.dir)
      expect(named.exitCode, named.stderr).toBe(2)
      expect(named.stderr).toContain('SNAPSHOT_NOT_FOUND')
      expect(named.stderr).toContain('no profile')
      const file = join(bare.dir, 'sandbox.db.snapshots', sandbox.credentials.partnerId, 'mine.snapshot')
      const path = await run(['--from-snapshot', file], {}, bare.dir)
      expect(path.exitCode, path.stderr).toBe(0)
      expect(path.stdout).toContain('mine@example.test')
    } finally {
      bare.cleanup()
    }
  })

  test('sandbox start --from-snapshot NAME restores only the operator’s own', async () => {
    await sandbox.stop()
    // Refused before it listens: the same run in this process.
    const theirs = await cli(['sandbox', 'start', '--port', '0', '--from-snapshot', 'theirs'])
    expect(theirs.exitCode, theirs.stderr).toBe(2)
    expect(theirs.stderr).toContain('SNAPSHOT_NOT_FOUND')
    sandbox = await startSandboxProcess(['--from-snapshot', 'mine'], {configDir: config.dir, data})
    const list = await cli(['users', 'list', '--json'])
    expect(list.stdout).toContain('mine@example.test')
  })
})

/** The Node payctl runs on, started straight away: its pid is payctl's own, with no wrapper between. */
const NODE =
  Number(process.versions.node.split('.')[0]) >= 24
    ? process.execPath
    : join(ROOT, 'node_modules', 'node', 'bin', 'node')

/** Whether a process has ended (one ended but not yet reaped by whoever took it over counts). */
/** A process as its pid and its start time (/proc, in clock ticks since boot), which no later process of that pid shares. */
interface Proc {
  pid: number
  start: string | undefined
}

function startOf(pid: number): string | undefined {
  try {
    // "PID (COMM) STATE …": the fields after COMM, of which starttime is the 20th.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]
  } catch {
    return undefined
  }
}

/**
 * Whether `proc` has ended: gone, a zombie, or its pid taken by a later process (pids wrap around
 * quickly on a machine running the whole suite).
 */
function ended(proc: Proc): boolean {
  try {
    process.kill(proc.pid, 0)
  } catch {
    return true
  }
  try {
    const stat = readFileSync(`/proc/${proc.pid}/stat`, 'utf8')
    return stat.split(') ')[1]?.startsWith('Z') === true || startOf(proc.pid) !== proc.start
  } catch {
    // Reaped in between where there is a /proc; where there is none (macOS), alive as kill said.
    return existsSync('/proc/self')
  }
}

/** Whether payctl `pid` has its watcher (src/cli/local-sandbox/one-shot-command.ts) running: a `payctl-watch` sh it started. */
function watchedBy(pid: number): boolean {
  let pids: string[]
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name))
  } catch {
    return true
  }
  return pids.some((p) => {
    try {
      const args = readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0')
      // Its parent, the fourth field of stat after the command name in parentheses.
      const parent = readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1]?.split(' ')[1]
      return args.includes('payctl-watch') && parent === String(pid)
    } catch {
      return false // gone meanwhile
    }
  })
}

/** Wait until `ok()`, checking every 50 ms, failing with `what` past a generous deadline. */
async function until(what: string, ok: () => boolean, deadlineMs = 30_000): Promise<void> {
  const deadline = Date.now() + deadlineMs
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`still not so after ${deadlineMs} ms: ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

describe("sandbox run: the command's output and its end", () => {
  const config = tempConfigDir()
  // A temporary dir of the tests' own, where the runs keep their private dirs.
  const tmp = tempConfigDir()
  const runs = () => readdirSync(tmp.dir).filter((name) => name.startsWith('payctl-run-'))
  const procs: Proc[] = []
  const payctls: ChildProcess[] = []
  /** The pid a script wrote to `file`, once whole, to be killed in the end should a test fail. */
  const pidIn = (file: string): Proc => {
    const pid = Number(readFileSync(join(tmp.dir, file), 'utf8'))
    expect(pid).toBeGreaterThan(1)
    const proc = {pid, start: startOf(pid)}
    procs.push(proc)
    return proc
  }
  const written = (file: string) => () =>
    existsSync(join(tmp.dir, file)) && readFileSync(join(tmp.dir, file), 'utf8').endsWith('\n')
  /** payctl sandbox run -- sh -c SCRIPT, a process of its own on the Node payctl runs on. */
  const start = (script: string, stdin: 'pipe' | 'ignore' = 'ignore') => {
    const child = spawn(NODE, [join(ROOT, 'bin', 'run.js'), 'sandbox', 'run', '--', 'sh', '-c', script], {
      env: cliEnv(config.dir, {TMPDIR: tmp.dir, OUT: tmp.dir}),
      stdio: [stdin, 'pipe', 'pipe'],
    })
    payctls.push(child)
    return child
  }
  afterAll(() => {
    // Whatever a failing test left running.
    for (const child of payctls) {
      child.stdin?.destroy()
      child.kill('SIGKILL')
    }
    // Only those still running: a pid may belong to another test's process by now.
    for (const proc of procs) {
      if (ended(proc)) continue
      try {
        process.kill(proc.pid, 'SIGKILL')
      } catch {}
    }
    config.cleanup()
    tmp.cleanup()
  })

  test('binary output passes through byte for byte, on stdout and stderr', async () => {
    const bytes = randomBytes(300_000)
    const file = join(tmp.dir, 'random.bin')
    writeFileSync(file, bytes)
    const child = start(`cat "$OUT/random.bin"; cat "$OUT/random.bin" >&2`)
    const out: Buffer[] = []
    const err: Buffer[] = []
    child.stdout!.on('data', (c: Buffer) => out.push(c))
    child.stderr!.on('data', (c: Buffer) => err.push(c))
    const [code] = await once(child, 'close')
    const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex')
    expect(code, Buffer.concat(err).toString().slice(-500)).toBe(0)
    expect(Buffer.concat(out).length).toBe(bytes.length)
    expect(sha(Buffer.concat(out))).toBe(sha(bytes))
    expect(sha(Buffer.concat(err))).toBe(sha(bytes))
  })

  test('its reader gone (| head -c): payctl ends the command and all it started, even deaf to SIGTERM, removes its dir, exits 141', async () => {
    // Deaf to SIGTERM, with what it starts: ended all the same, 5 s later.
    const script = [
      'trap "" TERM',
      'echo $$ > "$OUT/command.pid"',
      'sleep 600 & echo $! > "$OUT/background.pid"',
      'i=0; while [ $i -lt 1000000 ]; do echo "line $i"; i=$((i + 1)); done',
      'exit 7',
    ].join('; ')
    const pipeline = `set -o pipefail; "${NODE}" "${join(ROOT, 'bin', 'run.js')}" sandbox run -- sh -c '${script}' | head -c 100 >/dev/null`
    const shell = spawn('bash', ['-c', pipeline], {
      env: cliEnv(config.dir, {TMPDIR: tmp.dir, OUT: tmp.dir}),
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    let stderr = ''
    shell.stderr.on('data', (c: Buffer) => {
      stderr += c.toString()
    })
    const [code] = await once(shell, 'exit')
    const command = pidIn('command.pid')
    const background = pidIn('background.pid')
    expect(code, stderr).toBe(141)
    expect(runs()).toEqual([])
    await until('the command has ended', () => ended(command))
    await until('what the command started in the background has ended', () => ended(background))
  })

  test('kill -9 of payctl: the command ends with it; the next run removes the dir it left, never a live run’s', async () => {
    for (const file of ['command.pid', 'background.pid']) rmSync(join(tmp.dir, file), {force: true})
    // The run to kill, and beside it a run going on meanwhile, waiting on its stdin: started at once.
    const killed = start('echo $$ > "$OUT/command.pid"; sleep 600 & echo $! > "$OUT/background.pid"; wait')
    const live = start('echo started > "$OUT/live.started"; read line', 'pipe')
    await until('the command has started', written('background.pid'))
    await until('the live run has started', written('live.started'))
    const command = pidIn('command.pid')
    const background = pidIn('background.pid')
    // The watcher is there before the command starts.
    expect(watchedBy(killed.pid!)).toBe(true)
    // Each run's dir is named after its payctl's pid.
    const dirOf = (child: ChildProcess) =>
      runs().filter((name) => name.startsWith(`payctl-run-${child.pid}-`))
    const left = dirOf(killed)
    const ongoing = dirOf(live)
    expect(left).toHaveLength(1)
    expect(ongoing).toHaveLength(1)
    expect(runs().sort()).toEqual([...left, ...ongoing].sort())
    killed.kill('SIGKILL')
    await once(killed, 'exit')
    await until('the command has ended', () => ended(command))
    await until('what the command started in the background has ended', () => ended(background))
    expect(runs().sort()).toEqual([...left, ...ongoing].sort())

    const next = await runCli(['sandbox', 'run', '--', 'true'], {
      configDir: config.dir,
      env: {TMPDIR: tmp.dir},
    })
    expect(next.exitCode, next.stderr).toBe(0)
    expect(runs()).toEqual(ongoing)
    live.stdin!.end('\n')
    const [code] = await once(live, 'exit')
    expect(code).toBe(0)
    expect(runs()).toEqual([])
  })
})
