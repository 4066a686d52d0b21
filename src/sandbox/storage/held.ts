/** What keeps rows in memory beside the database (Database.holds): rows read, or writes held back. */
export interface HeldInMemory {
  /** Write what is held back: before the transaction it was made in ends, or another begins inside it. */
  flush?(): void
  /** Let go of it all: the file may hold otherwise (a rollback, the file replaced, a partner's rows deleted). */
  forget(): void
}

/** The commit of a group of transactions, which their answers wait for. */
export interface PendingCommit {
  promise: Promise<void>
  resolve: () => void
  reject: (err: unknown) => void
}

/**
 * What runs beside the sandbox's own connection on the same file (the background checkpointer):
 * stopped before the file is replaced under it, started again afterwards.
 */
export interface Companion {
  pause(): Promise<void>
  resume(): void
}
