import {lookup as dnsLookup, type LookupAddress, type LookupOptions} from 'node:dns'
import {BlockList, isIP, type LookupFunction} from 'node:net'

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

// Names of metadata services that resolve only inside a cloud.
const METADATA_NAMES =
  /^(metadata|metadata\.google\.internal|metadata\.goog|instance-data(\.ec2\.internal)?)\.?$/i

/** The IPv4 address an IPv6 address stands for (IPv4-mapped, -compatible or NAT64), if any. */
function embeddedIpv4(v6: string): string | undefined {
  const bytes = ipv6Bytes(v6)
  if (bytes === undefined) return undefined
  const zeros = (from: number, to: number) => bytes.slice(from, to).every((b) => b === 0)
  const mapped = zeros(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff
  const compatible = zeros(0, 12) && !zeros(12, 16)
  const nat64 =
    bytes[0] === 0x00 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && zeros(4, 12)
  if (!mapped && !compatible && !nat64) return undefined
  return bytes.slice(12).join('.')
}

function ipv6Bytes(text: string): number[] | undefined {
  let v6 = text.toLowerCase()
  // A trailing dotted quad (::ffff:1.2.3.4): turn it into two groups.
  const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(v6)
  if (quad) {
    const [a, b, c, d] = quad.slice(1).map(Number) as [number, number, number, number]
    v6 = `${v6.slice(0, quad.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const [head = '', tail] = v6.split('::')
  const parts = (s: string) => (s === '' ? [] : s.split(':'))
  const h = parts(head)
  const t = tail === undefined ? [] : parts(tail)
  const groups = tail === undefined ? h : [...h, ...Array(8 - h.length - t.length).fill('0'), ...t]
  if (groups.length !== 8) return undefined
  return groups.flatMap((g) => {
    const n = Number.parseInt(g, 16)
    return [(n >> 8) & 0xff, n & 0xff]
  })
}

/** Why an address may not be delivered to under `policy`, or undefined when it may. */
export function refusedAddress(address: string, policy: UrlPolicy): string | undefined {
  const family = isIP(address)
  if (family === 0) return undefined
  if (family === 6) {
    const v4 = embeddedIpv4(address)
    if (v4 !== undefined) return refusedAddress(v4, policy)
  }
  const type = family === 4 ? 'ipv4' : 'ipv6'
  if (always.check(address, type)) {
    return `${address} is a link-local, multicast or cloud metadata address, which the sandbox never delivers to`
  }
  if (policy.exposed && local.check(address, type)) {
    return `${address} is a loopback or private address, which a sandbox listening beyond loopback does not deliver to`
  }
  return undefined
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
