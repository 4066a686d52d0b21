import {type ChildProcess, spawn} from 'node:child_process'
import {join} from 'node:path'
import {cliEnv, ROOT, tempConfigDir} from './cli.js'

export interface SandboxCredentials {
  apiKey: string
  apiSecret: string
  partnerId: string
  secretKey: string
}

/** A real sandbox process on an ephemeral loopback port, with its own config dir. */
export interface SandboxProcess {
  url: string
  pid: number
  configDir: string
  credentials: SandboxCredentials
  /** Latest stderr (request log) of the sandbox. */
  log: () => string
  /** Send `signal` (SIGKILL: no chance to clean up) and wait until the process is gone. */
  kill: (signal: NodeJS.Signals) => Promise<void>
  stop: () => Promise<void>
}

/** Start `payctl sandbox start --port 0` as a process and wait until it reports ready. */
export async function startSandboxProcess(
  extraArgs: string[] = [],
  opts: {configDir?: string; data?: string; port?: number} = {},
): Promise<SandboxProcess> {
  const temp = opts.configDir ? undefined : tempConfigDir()
  const configDir = opts.configDir ?? temp!.dir
  const child: ChildProcess = spawn(
    process.execPath,
    [
      join(ROOT, 'bin', 'run.js'),
      'sandbox',
      'start',
      '--port',
      String(opts.port ?? 0),
      '--data',
      opts.data ?? ':memory:',
      '--json',
      // The tests use the credentials it prints.
      '--show-secrets',
      ...(extraArgs.includes('--rate-limit') ? [] : ['--rate-limit', 'off']),
      ...extraArgs,
    ],
    {env: cliEnv(configDir), stdio: ['ignore', 'pipe', 'pipe']},
  )
  let stderr = ''
  child.stderr!.on('data', (c: Buffer) => {
    stderr += c.toString()
  })
  const ready = await new Promise<{url: string; pid: number; credentials: SandboxCredentials}>(
    (resolve, reject) => {
      let out = ''
      const timer = setTimeout(() => reject(new Error(`sandbox did not start:\n${out}\n${stderr}`)), 60_000)
      child.stdout!.on('data', (c: Buffer) => {
        out += c.toString()
        try {
          const parsed = JSON.parse(out)
          clearTimeout(timer)
          if (parsed.error) reject(new Error(`sandbox did not start: ${out}\n${stderr}`))
          else resolve(parsed)
        } catch {
          // wait for the whole document
        }
      })
      child.once('exit', (code) => {
        clearTimeout(timer)
        reject(new Error(`sandbox exited with ${code}:\n${out}\n${stderr}`))
      })
    },
  )
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  return {
    url: ready.url,
    pid: ready.pid,
    configDir,
    credentials: ready.credentials,
    log: () => stderr,
    kill: async (signal) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal)
      await exited
    },
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
      await exited
      temp?.cleanup()
    },
  }
}
