/**
 * Who a transaction belongs to, when a product moved the money through the kernel: BNPL's
 * instalments, round-ups' transfers, the wallet product's payments and P2P sends. As Kubernetes
 * puts owner references on the objects a controller makes, the kernel keeps the owner on the
 * transaction, so that what the kernel and other features decide about a transaction (may it be
 * refunded?) needs no product's table.
 */
export interface Owner {
  /** The product's record type, as its feature declares it (`bnpl_installment`). */
  kind: string
  /** The record's id within its kind. */
  id: string
}

/** Why a refund of an owned transaction is refused, and its owner as the refusal names it. */
export interface OwnedRefusal {
  reason: string
  owner: Record<string, unknown>
}

/** A kind of owner, as the feature that sets it declares it. */
export interface OwnerKind {
  kind: string
  /**
   * Why POST /transactions/{id}/refund refuses a transaction it owns: its product keeps a record
   * that counts it, which a refund behind the product's back would leave wrong. Absent, its
   * transactions are refunded like any other.
   */
  refusal?: (ownerId: string) => OwnedRefusal
}

/** Every kind of owner the features declare. */
export class OwnerKinds {
  readonly #kinds: ReadonlyMap<string, OwnerKind>

  constructor(kinds: readonly OwnerKind[]) {
    this.#kinds = new Map(kinds.map((k) => [k.kind, k]))
    if (this.#kinds.size !== kinds.length) throw new Error('two features declare the same kind of owner')
  }

  /** Why a refund of what `owner` owns is refused; undefined when its kind lets refunds through. */
  refusal(owner: Owner): OwnedRefusal | undefined {
    const kind = this.#kinds.get(owner.kind)
    // A kind no feature declares (a file from a newer sandbox): its product may count it, so refuse.
    if (kind === undefined) {
      return {reason: `it belongs to ${owner.kind} ${owner.id}`, owner: {kind: owner.kind, id: owner.id}}
    }
    return kind.refusal?.(owner.id)
  }
}
