import type {Principal} from '../tenancy/authenticate.js'

/**
 * What the sandbox notes on a Fastify request beyond what Fastify keeps, declared once for every
 * file that sets or reads it.
 */
declare module 'fastify' {
  interface FastifyRequest {
    /** The partner of the caller, set once its credential is admitted (server.ts); absent without one. */
    partnerId?: string
    /**
     * What API fault injection did to this request's answer ("status 503", "drop after",
     * "latency 1500ms"), set where it did; the request log shows it as `fault`.
     */
    injectedFault?: string
    /** The caller, once its credential is admitted (admission.ts); absent on a route that takes none. */
    principal?: Principal | undefined
  }
}
