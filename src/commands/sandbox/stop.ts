import {BaseCommand} from '../../cli/base-command.js'
import {
  clearState,
  findSandbox,
  isAlive,
  isSandboxProcess,
  noSandboxHere,
  readState,
} from '../../cli/local-sandbox/sandbox-process.js'
import {isLocalUrl} from '../../core/index.js'

export default class SandboxStop extends BaseCommand<typeof SandboxStop> {
  static override summary = 'stop the sandbox started with payctl sandbox start'
  static override description =
    'Stops the sandbox that `payctl sandbox status` reports: the one started with this config dir, or else the one answering at the profile’s local URL. Exits 1 when there is none (`payctl sandbox status --all` lists those of other config dirs).'
  static override examples = ['<%= config.bin %> <%= command.id %>']

  async run(): Promise<{stopped: boolean; pid?: number}> {
    const dir = this.runtime.configDir
    const recorded = readState(dir)
    // Signal a process only if it is a `payctl sandbox start` on this machine and the sandbox
    // answering there confirms it is that pid: after a crash the recorded pid may belong to
    // something else by now. A state file is read only if it names this machine (readState); a
    // profile's URL must be loopback.
    const found = await findSandbox(dir, this.store, this.flags.profile)
    const {health, state} = found
    // A sandbox this config dir started that does not answer (suspended, hung, failing its health
    // check) is still the one to stop: the state file payctl wrote names it, and /proc says it is
    // a sandbox.
    const silent = health === undefined && recorded !== undefined && isSandboxProcess(recorded.pid)
    const pid = silent ? recorded.pid : health?.pid
    const url = silent ? recorded.url : found.url
    const here = silent || state !== undefined || isLocalUrl(url)
    if (pid === undefined || !here || !isSandboxProcess(pid)) {
      if (recorded && !isAlive(recorded.pid)) clearState(dir, recorded.pid)
      if (health) {
        this.out.warn(`The sandbox at ${url} does not say which process it is; stop it where it runs.`)
        return {stopped: false}
      }
      throw noSandboxHere(dir, url)
    }
    if (silent) this.out.warn(`The sandbox at ${url} (pid ${pid}) does not answer; stopping it anyway.`)
    process.kill(pid, 'SIGTERM')
    // A suspended process (Ctrl-Z, SIGSTOP) acts on SIGTERM only once it runs again.
    process.kill(pid, 'SIGCONT')
    const {clock} = this.runtime
    const deadline = clock.now() + 10_000
    while (isAlive(pid) && clock.now() < deadline) await new Promise((r) => setTimeout(r, 50))
    if (isAlive(pid)) process.kill(pid, 'SIGKILL')
    clearState(dir, pid)
    this.out.log(`✓ Stopped the sandbox at ${url} (pid ${pid})`)
    return {stopped: true, pid}
  }
}
