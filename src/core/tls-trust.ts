import {PayctlError} from './errors.js'

/**
 * Which certificate authorities payctl trusts, and what it says when a service's certificate is
 * refused. Behind a corporate proxy that re-signs TLS, every HTTPS answer carries a certificate of
 * the company's own CA, which Node does not know: PAYCTL_CA_FILE names that CA's certificate (PEM).
 * It is added to the authorities Node trusts already (its bundled ones and NODE_EXTRA_CA_CERTS),
 * never put in their place, so the public services stay reachable with it set. An environment
 * variable, as HTTPS_PROXY is: both belong to the network a machine is on, not to a profile.
 */

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g

/**
 * The authorities to trust when PAYCTL_CA_FILE is set: Node's own, then the file's. Undefined when
 * it is not set (Node's defaults apply, NODE_EXTRA_CA_CERTS included, and node:tls stays unloaded).
 */
export async function trustedAuthorities(env: NodeJS.ProcessEnv): Promise<string[] | undefined> {
  const path = env.PAYCTL_CA_FILE
  if (!path) return undefined
  // Loaded here, as node:tls below: only a process with PAYCTL_CA_FILE set pays for them.
  const [{readFile}, tls] = await Promise.all([import('node:fs/promises'), import('node:tls')])
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (err) {
    const code = (err as {code?: string}).code ?? 'unreadable'
    throw new PayctlError({
      kind: 'config',
      code: 'CA_FILE_UNREADABLE',
      message: `PAYCTL_CA_FILE names ${path}, which cannot be read (${code})`,
      suggestions: ["Set PAYCTL_CA_FILE to your company's CA certificate (a PEM file), or unset it"],
      cause: err,
    })
  }
  const own = text.match(PEM_CERTIFICATE)
  if (own === null) {
    throw new PayctlError({
      kind: 'config',
      code: 'CA_FILE_INVALID',
      message: `PAYCTL_CA_FILE names ${path}, which holds no PEM certificate (-----BEGIN CERTIFICATE-----)`,
      suggestions: ['Export the CA certificate as PEM (openssl x509 -in ca.crt -out ca.pem -outform PEM)'],
    })
  }
  // 'default': what Node trusts with no `ca` option given, NODE_EXTRA_CA_CERTS included.
  return [...tls.getCACertificates('default'), ...own]
}

// The service's certificate is fine but signed by an authority this machine does not trust.
const UNTRUSTED =
  /^(UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN|DEPTH_ZERO_SELF_SIGNED_CERT|UNABLE_TO_GET_ISSUER_CERT(_LOCALLY)?|CERT_UNTRUSTED)$/
// The certificate itself does not fit: another name, out of date, revoked.
const INVALID = /^(ERR_TLS_CERT_ALTNAME_INVALID|CERT_HAS_EXPIRED|CERT_NOT_YET_VALID|CERT_REVOKED)$/

/**
 * The error for a request whose TLS handshake refused the service's certificate (`code`, as a
 * network error names it), or undefined if `code` is no certificate problem.
 */
export function certificateError(
  code: string,
  origin: string,
  caFile: string | undefined,
  details: Record<string, unknown>,
  cause: unknown,
): PayctlError | undefined {
  if (UNTRUSTED.test(code)) {
    return new PayctlError({
      kind: 'network',
      code: 'CERTIFICATE_UNTRUSTED',
      message: `${origin} presented a certificate signed by an authority this machine does not trust (${code})${
        caFile ? `, not even with PAYCTL_CA_FILE=${caFile}` : ''
      }`,
      details,
      suggestions: [
        caFile
          ? `Check that ${caFile} holds the CA certificate that signs ${origin}'s (or your proxy's) certificates`
          : "Behind a proxy that re-signs TLS, set PAYCTL_CA_FILE to your company's CA certificate (PEM): see docs/network.md",
      ],
      cause,
    })
  }
  if (INVALID.test(code)) {
    return new PayctlError({
      kind: 'network',
      code: 'CERTIFICATE_INVALID',
      message: `${origin} presented a certificate that does not fit it (${code}): ${
        code === 'ERR_TLS_CERT_ALTNAME_INVALID'
          ? 'it names another host'
          : "it is out of date or revoked, or this machine's clock is wrong"
      }`,
      details,
      cause,
    })
  }
  return undefined
}
