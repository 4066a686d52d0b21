import {z} from 'zod'
import type {Endpoint} from './api/endpoint.js'
import {Timestamp} from './fields.js'

/**
 * Snapshots, a sandbox extension (docs/sandbox.md#snapshots): a partner's state (or, for the
 * operator, the whole sandbox) saved under a name beside the data file, restored in one
 * transaction, and carried to another machine as a file, chunk by chunk through the CLI.
 */

/** A snapshot's name: a file name on every system, so no `/`, no dot, nothing to escape. */
export const SNAPSHOT_NAME_RULE = 'a letter or digit, then up to 63 letters, digits, _ or -'
export const SnapshotName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/, `a snapshot's name is ${SNAPSHOT_NAME_RULE}`)
  .describe(`the snapshot's name: ${SNAPSHOT_NAME_RULE}`)

/**
 * The snapshot file format this payctl writes; it reads this one and every older one. 3: the header
 * carries the seal of the sandbox that wrote it.
 */
export const SNAPSHOT_FORMAT = 3
/** What marks a snapshot file's header: its last lines (format 2 and later), its first (format 1). */
export const SNAPSHOT_MAGIC = 'PAYCTL-SNAPSHOT'
/** The most bytes of a snapshot file one request carries (base64 keeps it under the body limit). */
export const SNAPSHOT_CHUNK_BYTES = 512 * 1024

export const SNAPSHOT_SCOPES = ['partner', 'all'] as const
export type SnapshotScope = (typeof SNAPSHOT_SCOPES)[number]

export const SnapshotSchema = z
  .object({
    name: SnapshotName,
    scope: z
      .enum(SNAPSHOT_SCOPES)
      .describe("partner: the caller's rows and clock; all: every partner of the sandbox (the operator's)"),
    partnerId: z.string().describe('the partner it was saved from (for all: the operator)'),
    createdAt: Timestamp,
    records: z.number().int().describe('rows it holds, across every table'),
    bytes: z.number().int().describe('size of the snapshot file'),
    format: z.number().int().describe('snapshot file format'),
    schemaVersion: z.number().int().describe('data file schema its rows are in'),
    sha256: z.string().describe('checksum of its rows, as the file records it'),
  })
  .meta({id: 'SandboxSnapshot'})
export type Snapshot = z.infer<typeof SnapshotSchema>

export const SaveSnapshotSchema = z
  .strictObject({
    name: SnapshotName,
    all: z.boolean().optional().describe("the whole sandbox, every partner: the operator's only"),
  })
  .meta({id: 'SaveSnapshotRequest'})
export const SnapshotListSchema = z.object({data: z.array(SnapshotSchema)}).meta({id: 'SandboxSnapshotList'})
export const RestoredSnapshotSchema = z
  .object({
    name: SnapshotName,
    scope: z.enum(SNAPSHOT_SCOPES),
    records: z.number().int(),
    restored: z.literal(true),
  })
  .meta({id: 'SandboxRestoredSnapshot'})
export const DeletedSnapshotSchema = z
  .object({name: SnapshotName, deleted: z.literal(true)})
  .meta({id: 'SandboxDeletedSnapshot'})
export const SnapshotChunkQuerySchema = z
  .strictObject({offset: z.coerce.number().int().min(0).default(0).describe('first byte to read')})
  .meta({id: 'SnapshotChunkQuery'})
export const SnapshotChunkSchema = z
  .object({
    offset: z.number().int(),
    bytes: z.number().int().describe('size of the whole file'),
    data: z.string().describe(`base64, at most ${SNAPSHOT_CHUNK_BYTES} bytes of the file from offset`),
  })
  .meta({id: 'SandboxSnapshotChunk'})
export const SnapshotUploadSchema = z
  .strictObject({
    offset: z.number().int().min(0).describe('where this chunk goes: the bytes received so far'),
    data: z
      .string()
      .max(Math.ceil(SNAPSHOT_CHUNK_BYTES / 3) * 4)
      .describe('base64 bytes of the file'),
    last: z.boolean().optional().describe('the file is whole: check it and store it under the name'),
  })
  .meta({id: 'SandboxSnapshotUpload'})
export const SnapshotUploadedSchema = z
  .object({
    name: SnapshotName,
    received: z.number().int().describe('bytes received so far'),
    snapshot: SnapshotSchema.optional().describe('the stored snapshot, once the last chunk came'),
  })
  .meta({id: 'SandboxSnapshotUploaded'})

const control = {
  tag: 'sandbox',
  auth: 'sandbox-admin',
  enveloped: false,
  versioned: false,
  extension: "snapshots of the sandbox's state: the platform has none",
} as const

export const snapshotEndpoints = {
  saveSnapshot: {
    ...control,
    operationId: 'saveSnapshot',
    method: 'POST',
    idempotent: false,
    path: '/_sandbox/snapshots',
    summary:
      "sandbox only: save the caller's rows and clock (or, for the operator, the whole sandbox) under a name",
    body: SaveSnapshotSchema,
    response: SnapshotSchema,
    status: 201,
    errors: ['INSUFFICIENT_PERMISSIONS', 'SNAPSHOT_QUOTA_EXCEEDED'],
  },
  listSnapshots: {
    ...control,
    operationId: 'listSnapshots',
    method: 'GET',
    path: '/_sandbox/snapshots',
    summary: "sandbox only: the caller's snapshots, newest first",
    response: SnapshotListSchema,
    status: 200,
    errors: [],
  },
  deleteSnapshot: {
    ...control,
    operationId: 'deleteSnapshot',
    method: 'DELETE',
    path: '/_sandbox/snapshots/{name}',
    summary: 'sandbox only: delete one of the caller’s snapshots',
    response: DeletedSnapshotSchema,
    status: 200,
    errors: ['NOT_FOUND'],
  },
  restoreSnapshot: {
    ...control,
    operationId: 'restoreSnapshot',
    method: 'POST',
    idempotent: false,
    path: '/_sandbox/snapshots/{name}/restore',
    summary:
      "sandbox only: put the caller's partner (or the whole sandbox) back as a snapshot holds it, in one transaction",
    response: RestoredSnapshotSchema,
    status: 200,
    errors: ['NOT_FOUND', 'SNAPSHOT_INVALID', 'SNAPSHOT_CONFLICT', 'INSUFFICIENT_PERMISSIONS'],
  },
  readSnapshotFile: {
    ...control,
    operationId: 'readSnapshotFile',
    method: 'GET',
    path: '/_sandbox/snapshots/{name}/file',
    summary: 'sandbox only: a chunk of one of the caller’s snapshot files, to keep it elsewhere',
    query: SnapshotChunkQuerySchema,
    response: SnapshotChunkSchema,
    status: 200,
    errors: ['NOT_FOUND'],
    rateLimited: false,
  },
  writeSnapshotFile: {
    ...control,
    operationId: 'writeSnapshotFile',
    method: 'PUT',
    // The last chunk has the whole file checked without holding up other requests (asynchronously),
    // which a keyed request's transaction does not allow; a chunk sent again is refused naming the offset.
    idempotent: false,
    path: '/_sandbox/snapshots/{name}/file',
    summary:
      'sandbox only: send a snapshot file chunk by chunk; the last one checks it and stores it under the name',
    body: SnapshotUploadSchema,
    response: SnapshotUploadedSchema,
    status: 200,
    errors: ['SNAPSHOT_INVALID', 'SNAPSHOT_QUOTA_EXCEEDED', 'VALIDATION_ERROR'],
    rateLimited: false,
  },
} satisfies Record<string, Endpoint>
