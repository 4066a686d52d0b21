import {BaseCommand} from '../../cli/base-command.js'
import {clearState, findSandbox, isAlive, isSandboxProcess, readState} from '../../cli/sandbox-process.js'
import {isLocalUrl} from '../../core/index.js'

export default class SandboxStop extends BaseCommand<typeof SandboxStop> {
  static override summary = 'stop the sandbox started with payctl sandbox start'
  static override description =
    'Stops the sandbox that `payctl sandbox status` reports: the one started with this config dir, or else the one answering at the profile’s local URL.'
  static override examples = ['<%= config.bin %> <%= command.id %>']

  async run(): Promise<{stopped: boolean; pid?: number}> {
    const recorded = readState()
    // Signal a process only if it is a `payctl sandbox start` on this machine and the sandbox
    // answering there confirms it is that pid: after a crash the recorded pid may belong to
    // something else by now. A state file is read only if it names this machine (readState); a
    // profile's URL must be loopback.
    const {url, health, state} = await findSandbox(this.store, this.flags.profile)
    const pid = health?.pid
    const here = state !== undefined || isLocalUrl(url)
    if (pid === undefined || !here || !isSandboxProcess(pid)) {
      if (recorded && !isAlive(recorded.pid)) clearState(recorded.pid)
      this.warnLine(
        health
          ? `The sandbox at ${url} does not say which process it is; stop it where it runs.`
          : 'No sandbox is running.',
      )
      return {stopped: false}
    }
    process.kill(pid, 'SIGTERM')
    const deadline = Date.now() + 10_000
    while (isAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
    if (isAlive(pid)) process.kill(pid, 'SIGKILL')
    clearState(pid)
    this.log(`✓ Stopped the sandbox at ${url} (pid ${pid})`)
    return {stopped: true, pid}
  }
}
