import type {Hook} from '@oclif/core'
import {distance} from 'fastest-levenshtein'
import {currentRuntime} from './runtime/runtime.js'

/**
 * The command closest to what was typed (oclif's id, words joined by `:`): one whose id begins with
 * it first (`sandbox stat` is `sandbox status`), else by the whole id or by any one word of it, so
 * that `logn` finds `auth:login` rather than the short `api`.
 */
export function closestCommand(typed: string, ids: string[]): string | undefined {
  const begun = ids.filter((id) => id.startsWith(typed) || id.split(':').some((w) => w.startsWith(typed)))
  if (typed !== '' && begun.length > 0) return begun.reduce((a, b) => (b.length < a.length ? b : a))
  let best: {id: string; score: number} | undefined
  for (const id of ids) {
    const words = id.split(':')
    const byWord = Math.min(...words.map((w) => distance(typed, w))) + 0.1 * (words.length - 1)
    const score = Math.min(distance(typed, id), byWord)
    if (!best || score < best.score || (score === best.score && id.length < best.id.length))
      best = {id, score}
  }
  return best?.id
}

/**
 * An unknown command: a usage error (exit 2), with the closest command, asked about in a terminal
 * (yes runs it) and printed otherwise.
 */
const hook: Hook.CommandNotFound = async function (opts) {
  const {io, env, prompter} = currentRuntime()
  const ids = opts.config.commands.filter((c) => !c.hidden).map((c) => c.id)
  const suggestion = closestCommand(opts.id, ids)
  const spoken = (id: string) => id.replaceAll(':', ' ')
  io.err.write(`${spoken(opts.id)} is not a payctl command.\n`)
  if (suggestion) {
    if (io.in.isTTY && io.err.isTTY && !env.CI) {
      const yes = await prompter
        .confirm(`Did you mean payctl ${spoken(suggestion)}?`, false)
        .catch(() => false)
      if (yes) {
        const argv = opts.argv?.length ? opts.argv : opts.id.split(':').slice(suggestion.split(':').length)
        return this.config.runCommand(suggestion, argv)
      }
    } else io.err.write(`Did you mean payctl ${spoken(suggestion)}?\n`)
  }
  this.error('Run payctl help for a list of available commands.', {exit: 2})
}

export default hook
