import {lookup as dnsLookup, type LookupAddress, type LookupOptions} from 'node:dns'
import {BlockList, isIP, type LookupFunction} from 'node:net'
import {ipv6Bytes} from '../../contract/loopback.js'

/**
 * Where the sandbox may POST webhook deliveries. A sandbox reachable only from this machine may
 * deliver to this machine and to private networks (that is what local development needs); one
 * that listens beyond loopback may not, or anyone who can reach it could make it probe them.
 * Link-local addresses (cloud metadata services live there) and the other metadata addresses
 * are never delivered to.
 */
export interface UrlPolicy {
  /** The sandbox listens on an address other than loopback. */
  exposed: boolean
}

const always = new BlockList()
always.addSubnet('169.254.0.0', 16, 'ipv4') // link-local, 169.254.169.254 metadata
always.addSubnet('224.0.0.0', 4, 'ipv4') // multicast
always.addSubnet('240.0.0.0', 4, 'ipv4') // reserved, broadcast
always.addAddress('168.63.129.16', 'ipv4') // Azure host services
always.addAddress('100.100.100.200', 'ipv4') // Alibaba Cloud metadata
always.addSubnet('fe80::', 10, 'ipv6') // link-local
always.addSubnet('ff00::', 8, 'ipv6') // multicast
always.addAddress('fd00:ec2::254', 'ipv6') // AWS metadata over IPv6

const local = new BlockList()
local.addSubnet('0.0.0.0', 8, 'ipv4') // "this host"
local.addSubnet('127.0.0.0', 8, 'ipv4')
local.addSubnet('10.0.0.0', 8, 'ipv4')
local.addSubnet('172.16.0.0', 12, 'ipv4')
local.addSubnet('192.168.0.0', 16, 'ipv4')
local.addSubnet('100.64.0.0', 10, 'ipv4') // carrier-grade NAT
local.addSubnet('198.18.0.0', 15, 'ipv4') // benchmarking
local.addAddress('::', 'ipv6')
local.addAddress('::1', 'ipv6')
local.addSubnet('fc00::', 7, 'ipv6') // unique local
local.addSubnet('fec0::', 10, 'ipv6') // site-local (deprecated)
// Local-use NAT64 (RFC 8215): a translator of this network, to addresses the prefix cannot tell.
local.addSubnet('64:ff9b:1::', 48, 'ipv6')

// Names of metadata services that resolve only inside a cloud.
const METADATA_NAMES =
  /^(metadata|metadata\.google\.internal|metadata\.goog|instance-data(\.ec2\.internal)?)\.?$/i

const quad = (b: number[], at: number[]) => at.map((i) => b[i]).join('.')

/**
 * The IPv4 addresses an IPv6 address may carry to an IPv4 host: IPv4-mapped (::ffff:a.b.c.d),
 * IPv4-translated (::ffff:0:a.b.c.d), IPv4-compatible (::a.b.c.d), NAT64 (64:ff9b::/96, and the
 * local-use 64:ff9b:1::/48, whose prefix may be a /48 to a /96, so the address may sit at any of
 * those places), 6to4 (2002:AABB:CCDD::/16) and Teredo (the server in bits 32–63, the client in
 * the last 32 bits, inverted). A relay or translator on the way would deliver to any of them.
 */
function embeddedIpv4(v6: string): string[] {
  const b = ipv6Bytes(v6)
  if (b === undefined) return []
  const zeros = (from: number, to: number) => b.slice(from, to).every((x) => x === 0)
  const starts = (...prefix: number[]) => prefix.every((x, i) => b[i] === x)
  const last = quad(b, [12, 13, 14, 15])
  if (zeros(0, 10) && b[10] === 0xff && b[11] === 0xff) return [last] // mapped
  if (zeros(0, 8) && b[8] === 0xff && b[9] === 0xff && zeros(10, 12)) return [last] // translated
  if (zeros(0, 12) && !zeros(12, 16)) return [last] // compatible
  if (starts(0x00, 0x64, 0xff, 0x9b) && zeros(4, 12)) return [last] // NAT64, well-known
  if (starts(0x00, 0x64, 0xff, 0x9b, 0x00, 0x01)) {
    // RFC 6052's places for a /48, /56, /64 and /96 prefix (bits 64–71 are always skipped).
    return [quad(b, [6, 7, 9, 10]), quad(b, [7, 9, 10, 11]), quad(b, [9, 10, 11, 12]), last]
  }
  if (starts(0x20, 0x02)) return [quad(b, [2, 3, 4, 5])] // 6to4
  if (starts(0x20, 0x01, 0x00, 0x00)) {
    return [
      quad(b, [4, 5, 6, 7]),
      b
        .slice(12)
        .map((x) => x ^ 0xff)
        .join('.'),
    ] // Teredo
  }
  return []
}

const NEVER = 'a link-local, multicast or cloud metadata address, which the sandbox never delivers to'
const INSIDE = 'a loopback or private address, which a sandbox listening beyond loopback does not deliver to'

/** Why an address may not be delivered to under `policy`, or undefined when it may. */
export function refusedAddress(address: string, policy: UrlPolicy): string | undefined {
  const family = isIP(address)
  if (family === 0) return undefined
  const carried = family === 6 ? embeddedIpv4(address) : []
  const judge = (list: BlockList, why: string) => {
    if (list.check(address, family === 4 ? 'ipv4' : 'ipv6')) return `${address} is ${why}`
    const v4 = carried.find((a) => list.check(a, 'ipv4'))
    return v4 === undefined ? undefined : `${address} carries ${v4}, ${why}`
  }
  // The worse reason first: a metadata address in one place outranks "this host" in another.
  return judge(always, NEVER) ?? (policy.exposed ? judge(local, INSIDE) : undefined)
}

/**
 * Why the sandbox refuses to deliver to `url`, or undefined. The WHATWG parser has already turned
 * every spelling of an IPv4 address (decimal 2852039166, hex 0xa9fea9fe, octal 0251.0376.…, short
 * forms) into dotted quads, and IPv6 into its canonical form; names are checked again, address by
 * address, when a delivery resolves them.
 */
export function refusedUrl(url: URL, policy: UrlPolicy): string | undefined {
  const host = url.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '')
  if (METADATA_NAMES.test(host))
    return `${host} is a cloud metadata service, which the sandbox never delivers to`
  if (isIP(host) !== 0) return refusedAddress(host, policy)
  if (policy.exposed && (host === 'localhost' || host.endsWith('.localhost'))) {
    return `${host} is this machine, which a sandbox listening beyond loopback does not deliver to`
  }
  return undefined
}

/**
 * Why a webhook may not be registered to `url` (docs/webhooks.md, "Where deliveries may go"), or
 * undefined: a URL of the sandbox's own, http or https, carrying no credentials, to an address the
 * policy allows. What a registration and a restored registration are both checked by.
 */
export function urlProblem(url: string, policy: UrlPolicy): {code: string; message: string} | undefined {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return {code: 'invalid_url', message: 'not a URL'}
  }
  const protocol = parsed.protocol
  if (protocol !== 'http:' && protocol !== 'https:')
    return {code: 'invalid_url', message: `webhook URLs must be http or https, not ${protocol.slice(0, -1)}`}
  // Never stored, so never shown by GET /v1/webhooks nor written to a log; receivers check the signature.
  if (parsed.username !== '' || parsed.password !== '') {
    return {
      code: 'url_credentials',
      message:
        'webhook URLs must not carry credentials (user:password@); receivers authenticate deliveries by their x-service-signature',
    }
  }
  const why = refusedUrl(parsed, policy)
  return why === undefined ? undefined : {code: 'url_not_allowed', message: why}
}

/** The URL as shown and logged: without any `user:password@`. */
export function displayUrl(url: string): string {
  try {
    const parsed = new URL(url)
    if (parsed.username === '' && parsed.password === '') return url
    parsed.username = ''
    parsed.password = ''
    return parsed.toString()
  } catch {
    return url
  }
}

/** An error a delivery fails with when a name resolves to an address it may not reach. */
export class RefusedAddressError extends Error {
  readonly code = 'WEBHOOK_ADDRESS_REFUSED'
}

/**
 * A `lookup` for net.connect that resolves a name and refuses it when any of its addresses is one
 * the policy forbids; the connection then goes to an address that was checked, so a name cannot
 * change its answer between the check and the connect.
 */
export function checkedLookup(policy: UrlPolicy): LookupFunction {
  return (hostname, options: LookupOptions, callback) => {
    dnsLookup(hostname, {...options, all: true}, (err, addresses: LookupAddress[]) => {
      if (err) {
        callback(err, [])
        return
      }
      for (const a of addresses) {
        const why = refusedAddress(a.address, policy)
        if (why !== undefined) {
          callback(new RefusedAddressError(`${hostname} resolves to ${why}`), [])
          return
        }
      }
      if (options.all) callback(null, addresses)
      else callback(null, addresses[0]?.address ?? '', addresses[0]?.family ?? 4)
    })
  }
}
