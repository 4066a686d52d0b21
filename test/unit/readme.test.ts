import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {commandsFromSource, ROOT} from '../helpers/cli.js'

describe('README set-up and examples', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
  const table = readme.slice(
    readme.indexOf('## Commands'),
    readme.indexOf('\n## ', readme.indexOf('## Commands')),
  )

  it('lists every top-level command and topic in its commands table', async () => {
    const topics = new Set(
      (await commandsFromSource())
        .filter((c) => !c.hidden && c.id !== 'help')
        .map((c) => c.id.split(':')[0]!),
    )
    topics.add('autocomplete')
    for (const topic of topics) expect(table, topic).toMatch(new RegExp(`\\| [^|]*\`${topic}\``))
  })

  it('runs payctl from the PATH, never with npx, and leaves the shell’s $USER alone', () => {
    const blocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]).join('\n')
    expect(blocks).not.toMatch(/npx payctl/)
    expect(blocks).not.toMatch(/(^|\s)USER=/m)
    expect(readme).toMatch(/```sh\nnpm ci && npm start[^\n]*\nnpm test/)
  })
})
