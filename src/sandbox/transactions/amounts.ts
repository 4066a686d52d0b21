// The contract's request bodies read their amounts exactly (bigint). These names stay for the
// services that type their input with them; new code names the contract's schemas.
export {
  CreateTransactionSchema as CreateTransactionInput,
  CreateWalletSchema as CreateWalletInput,
} from '../../contract/resources.js'
export {
  RefundRequestSchema as RefundInput,
  UpdateWalletSchema as UpdateWalletInput,
} from '../../contract/transactions.js'
export {
  EligibilityRequestSchema as EligibilityInput,
  P2PRequestSchema as P2PInput,
  WalletPaymentRequestSchema as WalletPaymentInput,
} from '../../contract/wallet-product.js'
