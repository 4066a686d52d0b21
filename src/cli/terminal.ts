import {styleText} from 'node:util'

type Style = Parameters<typeof styleText>[0]

/** Colour for stdout text: none when stdout is not a TTY or NO_COLOR is set (styleText checks both). */
export function paint(style: Style, text: string, stream: NodeJS.WriteStream = process.stdout): string {
  return styleText(style, text, {stream})
}

/** Whether the process may prompt: stdin is a TTY, CI is unset and the user did not say --no-input. */
export function canPrompt(noInput: boolean): boolean {
  return Boolean(process.stdin.isTTY) && !noInput && !isCI()
}

export function isCI(): boolean {
  const ci = process.env.CI
  return ci !== undefined && ci !== '' && ci !== '0' && ci.toLowerCase() !== 'false'
}

export const STATUS_STYLES: Record<string, Style> = {
  active: 'green',
  completed: 'green',
  connected: 'green',
  disabled: 'gray',
  pending_verification: 'yellow',
  pending: 'yellow',
  processing: 'yellow',
  suspended: 'red',
  frozen: 'cyan',
  closed: 'gray',
  failed: 'red',
  reversed: 'magenta',
  refunded: 'magenta',
  cancelled: 'gray',
}
