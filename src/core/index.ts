export {connectableHost, isLocalUrl, isLoopbackHost} from '../contract/loopback.js'
export {formatMinor, formatMoney} from '../contract/money/amounts.js'
export {
  type BalanceAfter,
  type DeliveryOutcome,
  deliveryWords,
  TIMELINE_KINDS,
  type TimelineKind,
  type TimelineLine,
} from '../contract/timeline/lines.js'
export {
  computeSignature,
  DEFAULT_TOLERANCE_SECONDS,
  SIGNATURE_HEADER,
  type SignatureFailure,
  signatureHeader,
  type VerifyOptions,
  type VerifyResult,
  verifySignature,
} from '../contract/webhook-signing/signature.js'
export {type AuditEntry, AuditLog, redactArgv, withFlagValue} from './audit.js'
export {
  type CallArgs,
  type CallInput,
  type CallResult,
  type ClientOptions,
  type Exact,
  errorFrom,
  type MutationRecord,
  PayctlClient,
} from './client.js'
export {
  assertConfigDir,
  configDir,
  configDirProblem,
  openPrivateAppend,
  privateSubdir,
  readOwnFile,
  writePrivateFile,
} from './config-dir.js'
export {
  type ConnectOptions,
  connect,
  type PartnerCredentialsOptions,
  type ProfileConnectOptions,
  type SecretKeyOptions,
} from './connect.js'
export {type Check, runDoctor} from './doctor.js'
export {
  assertCredentialFitsEnvironment,
  DEFAULT_LOCAL_URL,
  type EnvironmentKind,
  environmentKind,
} from './environments.js'
export {type ErrorKind, EXIT, PayctlError, usageError} from './errors.js'
export {parseExact, stringifyExact} from './exact-json.js'
export {mintInspectorLink} from './inspector-link.js'
export {
  boundMs,
  type Investigation,
  type InvestigationOptions,
  investigate,
  type Missing,
} from './investigation.js'
export {hasBareDecimals, isPlainMajor, parseAmount, readMajor} from './money.js'
export {allItems, followPages, nextCursorOf} from './pagination.js'
export {
  type CachedToken,
  checkProfileName,
  credentialFingerprint,
  credentialsFromEnv,
  normaliseBaseUrl,
  type ProfileFile,
  type ProfileOverrides,
  ProfileStore,
  profileNotFound,
  type ResolvedProfile,
  removeProfile,
  resolveProfile,
  type StoredAuth,
  type StoredProfile,
  storedProfile,
  useProfile,
  type ValueSource,
} from './profiles.js'
export {TokenBucket} from './rate-limiter.js'
export {isSecretHeader, redactText, redactValue} from './redact.js'
export {
  type ClockAdvance,
  type PartnerCredentials,
  SandboxClient,
  type SandboxClientOptions,
  type SandboxConnection,
  sandboxClient,
} from './sandbox-client.js'
export {probeSandbox} from './sandbox-probe.js'
export {exportFixture, writeFileAtomically, writeFixtureFile} from './seed/export.js'
export type {SeedRecordIds, SeedResult} from './seed/index.js'
export {
  assertReachable,
  type LoginInput,
  localSession,
  login,
  logout,
  type SessionInfo,
  saveLocalProfile,
  status,
  verifyCredentials,
} from './session.js'
export {downloadSnapshot, uploadSnapshot} from './snapshot-files.js'
export {
  auditedUser,
  type ImportOptions,
  isStoryFixture,
  loadStory,
  NOT_RECREATED,
  prepareStory,
  type ReadyStory,
  readStoryFixture,
  sourceToSandbox,
  storyFixture,
  writeStoryMap,
} from './story/import.js'
export {Redactor, redactionKey} from './story/redact.js'
export {TokenManager} from './token-manager.js'
export {Connections, closeTransport, type RetryInfo, type TransportOptions} from './transport.js'
export {findUsersPage, resolveUserId, type UserFilters} from './users.js'
export {isFinal, waitForFinal} from './wait.js'
