import {afterAll, beforeAll, expect, it} from 'vitest'
import {type SupportStory, supportStory} from '../helpers/support-story.js'
import {hasScript, screenOf} from '../helpers/terminal.js'

/**
 * The support story's `users inspect` (test/commands/inspect.test.ts) as a person sees it: payctl in
 * a real pseudo-terminal of 80 columns.
 */
let ticket: SupportStory
beforeAll(async () => {
  if (hasScript) ticket = await supportStory()
}, 120_000)
afterAll(async () => {
  await ticket?.stop()
})

it.runIf(hasScript)(
  'fits every line, cuts no id, time or amount, and shows times where the person is',
  async () => {
    const {ada, usd, eur, card, ach} = ticket
    const {configDir} = ticket.sandbox
    const {lines, code} = await screenOf(['users', 'inspect', ada], {
      cols: 80,
      configDir,
      env: {TZ: 'Asia/Kolkata'},
    })
    expect(code, lines.join('\n')).toBe(0)
    const long = lines.filter((l) => l.length > 80)
    expect(long, lines.join('\n')).toEqual([])
    const text = lines.join('\n')
    expect(text).not.toContain('…')
    for (const wanted of [
      usd,
      eur,
      card,
      ach,
      'failed R01',
      'processing',
      'delivered on try 2',
      'BNPL instalment',
    ])
      expect(text, wanted).toContain(wanted)
    // The window in the terminal's zone; the table's times in the short form the width rules give.
    expect(text).toMatch(/Timeline, newest first: \d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+05:30 to now/)
    expect(lines.some((l) => /^\d{2}-\d{2} \d{2}:\d{2}\s/.test(l))).toBe(true)
    expect(text).toMatch(/-25\.00 USD/)
    const utc = await screenOf(['users', 'inspect', ada, '--utc'], {cols: 80, configDir})
    expect(utc.lines.join('\n')).toMatch(/Timeline, newest first: \S+Z to now/)
  },
)
