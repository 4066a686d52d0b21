/**
 * The names of the events the service announces (the spec's fourteen), apart from the envelope's
 * schema (events.ts) so that what only needs the names, the inspector's browser bundle among them,
 * loads no schema library.
 */
export const EVENT_NAMES = [
  'roundupsvc.roundup.processed',
  'roundupsvc.transfer.completed',
  'bnplsvc.payment.created',
  'bnplsvc.payment.completed',
  'bnplsvc.payment.failed',
  'walletsvc.payment.completed',
  'walletsvc.p2p.sent',
  'walletsvc.card.created',
  'transfer.completed',
  'transfer.failed',
  'roundup.processed',
  'wallet.created',
  'transaction.completed',
  'transaction.failed',
] as const
export type EventName = (typeof EVENT_NAMES)[number]
