import {spawn} from 'node:child_process'
import {once} from 'node:events'
import {statSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {cliEnv, payctl, ROOT, tempConfigDir} from '../helpers/cli.js'

const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8)

describe('local files', () => {
  it('creates the config dir 0700 whatever the umask, so a first run never locks out the next', async () => {
    const temp = tempConfigDir()
    const dir = join(temp.dir, 'fresh')
    try {
      // The umask is a process's: the first run has one of its own.
      const command = `umask 002; exec '${process.execPath}' '${join(ROOT, 'bin', 'run.js')}' profiles list --json`
      const child = spawn('sh', ['-c', command], {env: cliEnv(dir), stdio: 'ignore'})
      const [code] = await once(child, 'close')
      expect(code).toBe(0)
      expect(modeOf(dir)).toBe('700')
      // The next run finds a config dir it accepts.
      const next = await payctl(['profiles', 'list', '--json'], {configDir: dir})
      expect(next.exitCode, next.stderr).toBe(0)
    } finally {
      temp.cleanup()
    }
  })
})
