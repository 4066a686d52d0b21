import {z} from 'zod'

export const MetaSchema = z.object({requestId: z.string(), timestamp: z.string()}).meta({id: 'Meta'})

/** Variant A success shape: `success` true, `data`, `meta`. */
export function envelopeOf<T extends z.ZodType>(data: T) {
  return z.object({success: z.literal(true), data, meta: MetaSchema})
}

/** The two response shapes the sandbox can serve (`sandbox start --response-shape`). */
export const RESPONSE_SHAPES = ['envelope', 'direct'] as const
export type ResponseShape = (typeof RESPONSE_SHAPES)[number]

/** If `body` is a success envelope, return its `data`; otherwise the body itself (direct shape). */
export function unwrapEnvelope(body: unknown): unknown {
  if (
    body !== null &&
    typeof body === 'object' &&
    (body as {success?: unknown}).success === true &&
    'data' in body &&
    'meta' in body
  ) {
    return (body as {data: unknown}).data
  }
  return body
}
