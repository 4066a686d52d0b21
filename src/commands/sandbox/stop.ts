import {BaseCommand} from '../../cli/base-command.js'
import {clearState, isAlive, isSandboxProcess, readState} from '../../cli/sandbox-process.js'
import {probeSandbox} from '../../core/index.js'

export default class SandboxStop extends BaseCommand<typeof SandboxStop> {
  static override summary = 'stop the sandbox started with payctl sandbox start'
  static override examples = ['<%= config.bin %> <%= command.id %>']

  async run(): Promise<{stopped: boolean; pid?: number}> {
    const state = readState()
    // Signal the recorded process only if it is a `payctl sandbox start` and the sandbox at its
    // URL (on this machine) confirms that pid: after a crash the pid may belong to something else by now,
    // and a state file someone else wrote is not read at all (readState).
    const health = state && isSandboxProcess(state.pid) ? await probeSandbox(state.url) : undefined
    if (!state || !health || health.pid !== state.pid) {
      if (state) clearState(state.pid)
      this.warnLine('No sandbox is running.')
      return {stopped: false}
    }
    process.kill(state.pid, 'SIGTERM')
    const deadline = Date.now() + 10_000
    while (isAlive(state.pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
    if (isAlive(state.pid)) process.kill(state.pid, 'SIGKILL')
    clearState(state.pid)
    this.log(`✓ Stopped the sandbox at ${state.url} (pid ${state.pid})`)
    return {stopped: true, pid: state.pid}
  }
}
