/**
 * The scopes a credential can carry, apart from the features that require them: an endpoint names
 * the scope it requires, so the endpoint type needs them without importing any feature.
 */

export const SCOPES_A = [
  'users:read',
  'users:write',
  'accounts:read',
  'accounts:write',
  'transfers:read',
  'transfers:write',
  'roundups:read',
  'roundups:write',
  'webhooks:write',
] as const
export const SCOPES_B = [
  'payments:read',
  'payments:create',
  'payments:refund',
  'balance:read',
  'payouts:create',
] as const
export type ScopeA = (typeof SCOPES_A)[number]
/**
 * Sandbox extension: the scope of an access token that may use the sandbox's control routes
 * (reset, clock, trigger). A token exchanged without `scopes` has it; a narrowed one only if asked.
 */
export const SANDBOX_ADMIN_SCOPE = 'sandbox:admin'
/** What a Variant A token exchange can grant: the spec's scopes and the sandbox's own. */
export const TOKEN_SCOPES = [...SCOPES_A, SANDBOX_ADMIN_SCOPE] as const
export type ScopeB = (typeof SCOPES_B)[number]
