/**
 * `npm test`'s first step: the build, the lint and the type check, run at once (none reads what
 * another writes: the build goes to a folder of its own, which biome and tsc do not read), each
 * one's output printed whole when it ends, in a block of its own. Exits non-zero if any failed,
 * once all have ended.
 *
 *   node scripts/check.ts
 */
import {spawn} from 'node:child_process'

const STEPS = ['build', 'lint', 'typecheck']

function run(script: string): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', '--silent', script], {stdio: ['ignore', 'pipe', 'pipe']})
    const output: Buffer[] = []
    child.stdout.on('data', (c: Buffer) => output.push(c))
    child.stderr.on('data', (c: Buffer) => output.push(c))
    child.on('close', (code, signal) => {
      const ok = code === 0
      process.stdout.write(`> npm run ${script}: ${ok ? 'ok' : `failed (${code ?? signal})`}\n`)
      process.stdout.write(Buffer.concat(output))
      resolve(ok)
    })
  })
}

const results = await Promise.all(STEPS.map(run))
if (results.includes(false)) process.exit(1)
