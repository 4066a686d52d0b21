/** The shapes of the values the `meta` table keeps, which Database.metaValue checks when it reads one. */

/** What a value of the `meta` table must look like, and how to say so. */
export interface MetaShape {
  valid: (value: string) => boolean
  what: string
}

/** A random key of `bytes` bytes, in base64. */
export const keyShape = (bytes: number): MetaShape => ({
  valid: (v) => /^[A-Za-z0-9+/]+={0,2}$/.test(v) && Buffer.from(v, 'base64').length === bytes,
  what: `a ${bytes}-byte key in base64`,
})

/** A whole number from 0 to `max`, in decimal digits. */
export const countShape = (max: number, what: string): MetaShape => ({
  valid: (v) => /^\d{1,16}$/.test(v) && Number(v) <= max,
  what,
})

/** The key that seals snapshot files (snapshots/file.ts sealOf). */
export const SNAPSHOT_KEY = keyShape(32)
