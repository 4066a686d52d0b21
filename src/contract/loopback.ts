/**
 * Which addresses stay on this machine. A request to one never goes through a proxy (the local
 * sandbox's secret would travel in clear to it), counts as the local environment, and a sandbox
 * bound to the unspecified address is reached through loopback.
 *
 * Hosts are read through the WHATWG URL parser first, so every spelling it normalises (`127.1`,
 * `0x7f.0.0.1`, `2130706433`, `0`, `[0:0:0:0:0:0:0:1]`, `%6Cocalhost`, upper case) arrives here as
 * its canonical form; what is left to handle is the trailing dot of a fully qualified name and
 * IPv6 forms that carry an IPv4 address.
 */

/** The host of a URL, lower case, without brackets or a trailing dot; undefined when it does not parse. */
export function hostOf(url: string): string | undefined {
  try {
    return bareHost(new URL(url).hostname)
  } catch {
    return undefined
  }
}

/** A host as written in a URL or a --host flag, without brackets or a trailing dot, lower case. */
function bareHost(host: string): string {
  return host
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.+$/, '')
}

/** `localhost` and names under it, 127.0.0.0/8 and ::1, in any spelling the URL parser accepts. */
export function isLoopbackHost(host: string): boolean {
  const h = bareHost(host)
  if (h === 'localhost' || h.endsWith('.localhost')) return true
  const v4 = ipv4Of(h)
  return v4 === undefined ? h === '::1' || ipv6Equals(h, 1n) : v4 >>> 24 === 127
}

/** The unspecified address (0.0.0.0, ::): what a server binds to listen everywhere. */
export function isUnspecifiedHost(host: string): boolean {
  const h = bareHost(host)
  const v4 = ipv4Of(h)
  return v4 === undefined ? ipv6Equals(h, 0n) : v4 === 0
}

/** Whether a request to `url` stays on this machine: loopback or the unspecified address. */
export function isLocalUrl(url: string): boolean {
  const host = hostOf(url)
  return host !== undefined && (isLoopbackHost(host) || isUnspecifiedHost(host))
}

/**
 * The address a client on this machine should use for a server bound to `host`: loopback for the
 * unspecified address (0.0.0.0 is a bind address; some systems refuse to connect to it), else
 * `host` itself. Bracketed for a URL when it is IPv6.
 */
export function connectableHost(host: string): string {
  const h = bareHost(host)
  if (isUnspecifiedHost(h)) return h.includes(':') ? '[::1]' : '127.0.0.1'
  return h.includes(':') ? `[${h}]` : h
}

/** A dotted-quad IPv4 address as an unsigned 32-bit number, or the IPv4 address an IPv6 one maps. */
function ipv4Of(h: string): number | undefined {
  const quad = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(h)
  if (quad) {
    const parts = quad.slice(1).map(Number)
    if (parts.some((p) => p > 255)) return undefined
    return ((parts[0]! << 24) | (parts[1]! << 16) | (parts[2]! << 8) | parts[3]!) >>> 0
  }
  const v6 = ipv6Value(h)
  if (v6 === undefined) return undefined
  // ::ffff:a.b.c.d (mapped) and ::a.b.c.d (compatible, deprecated but still parsed): the IPv4 inside.
  const high = v6 >> 32n
  if (high === 0xffffn || (high === 0n && v6 > 1n)) return Number(v6 & 0xffffffffn)
  return undefined
}

function ipv6Equals(h: string, value: bigint): boolean {
  return ipv6Value(h) === value
}

/** A 128-bit IPv6 address from its text form (`::` compression and a trailing dotted quad allowed). */
function ipv6Value(h: string): bigint | undefined {
  if (!h.includes(':') || !/^[0-9a-f:.]+$/.test(h)) return undefined
  let text = h
  const dotted = /^(.*:)(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text)
  if (dotted) {
    const b = dotted.slice(2).map(Number)
    if (b.some((p) => p > 255)) return undefined
    text = `${dotted[1]}${((b[0]! << 8) | b[1]!).toString(16)}:${((b[2]! << 8) | b[3]!).toString(16)}`
  }
  const halves = text.split('::')
  if (halves.length > 2) return undefined
  const groups = (s: string) => (s === '' ? [] : s.split(':'))
  const head = groups(halves[0]!)
  const tail = halves.length === 2 ? groups(halves[1]!) : []
  const missing = 8 - head.length - tail.length
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined
  const all = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...tail]
  let value = 0n
  for (const g of all) {
    if (!/^[0-9a-f]{1,4}$/.test(g)) return undefined
    value = (value << 16n) | BigInt(Number.parseInt(g, 16))
  }
  return value
}
