import type {IOStreams} from './io.js'

export type Validate = (value: string) => true | string | Promise<true | string>

/**
 * The questions payctl asks a person, as gh's prompter: every prompt goes through one, so a
 * command's questions can be answered by a script in a test (scriptedPrompter) and the terminal
 * library is loaded only when one is asked.
 */
export interface Prompter {
  input(message: string, initial: string | undefined, validate?: Validate): Promise<string>
  /** Typed without being shown (a secret). */
  password(message: string, validate?: Validate): Promise<string>
  confirm(message: string, initial: boolean): Promise<boolean>
  select<T>(message: string, choices: {name: string; value: T}[], initial?: T): Promise<T>
}

/** Prompts with @inquirer/prompts, read from the streams' stdin and drawn on their stderr. */
export function terminalPrompter(io: IOStreams): Prompter {
  // Read when a question is asked: opening stdin costs what a command that asks nothing should not pay.
  const context = {
    get input() {
      return io.in.stream
    },
    get output() {
      return io.err.stream
    },
  }
  const prompts = () => import('@inquirer/prompts')
  return {
    async input(message, initial, validate) {
      const {input} = await prompts()
      return input({message, default: initial, ...(validate ? {validate} : {})}, context)
    },
    async password(message, validate) {
      const {password} = await prompts()
      return password({message, mask: '*', ...(validate ? {validate} : {})}, context)
    },
    async confirm(message, initial) {
      const {confirm} = await prompts()
      return confirm({message, default: initial}, context)
    },
    async select(message, choices, initial) {
      const {select} = await prompts()
      return select({message, choices, ...(initial === undefined ? {} : {default: initial})}, context)
    },
  }
}

/**
 * A prompter that answers from a script, in order, and remembers each question: for tests. A
 * question past the end of the script fails, as a prompt nobody answers would hang.
 */
export function scriptedPrompter(answers: unknown[]): Prompter & {asked: string[]} {
  const asked: string[] = []
  const next = async <T>(message: string, validate?: Validate): Promise<T> => {
    asked.push(message)
    if (answers.length === 0) throw new Error(`no scripted answer for "${message}"`)
    const answer = answers.shift() as T
    const verdict = validate === undefined ? true : await validate(String(answer))
    if (verdict !== true) throw new Error(`scripted answer "${String(answer)}" refused: ${verdict}`)
    return answer
  }
  return {
    asked,
    input: (message, _initial, validate) => next(message, validate),
    password: (message, validate) => next(message, validate),
    confirm: (message) => next(message),
    select: (message) => next(message),
  }
}
