/**
 * The two response shapes of the interface, and reading a success envelope. Plain code, no schema
 * library: the client's one-call fast path reads answers with it (the envelope's zod schemas are in
 * fields.ts).
 */

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
