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
  stop: () => Promise<void>
}

/** Start `payctl sandbox start --port 0` as a process and wait until it reports ready. */
export async function startSandboxProcess(
  extraArgs: string[] = [],
  opts: {configDir?: string; data?: string} = {},
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
      '0',
      '--data',
      opts.data ?? ':memory:',
      '--json',
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
      const timer = setTimeout(() => reject(new Error(`sandbox did not start:\n${out}\n${stderr}`)), 20_000)
      child.stdout!.on('data', (c: Buffer) => {
        out += c.toString()
        try {
          const parsed = JSON.parse(out)
          clearTimeout(timer)
          resolve(parsed)
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
  return {
    url: ready.url,
    pid: ready.pid,
    configDir,
    credentials: ready.credentials,
    log: () => stderr,
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r))
        child.kill('SIGTERM')
        await exited
      }
      temp?.cleanup()
    },
  }
}
