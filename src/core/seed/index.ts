export {
  type FileProgress,
  fixturePaths,
  journalPath,
  refuseSharedNames,
  registrations,
  type SeedFilesOptions,
  sandboxInstance,
  seedFiles,
  seedRate,
  writeSeedIds,
} from './files.js'
export {
  type Fixture,
  fixtureFromDocument,
  loadFixture,
  loadFixtures,
  RECORD_KINDS,
  type RecordKind,
  type SeedRecord,
} from './fixture.js'
export {Journal} from './journal.js'
export {
  plan,
  type SeedOptions,
  type SeedProgress,
  type SeedRecordIds,
  type SeedResult,
  seed,
  seedKey,
} from './runner.js'
