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
  return v4 === undefined ? ipv6Equals(h, 1) : v4 >>> 24 === 127
}

/** The unspecified address (0.0.0.0, ::): what a server binds to listen everywhere. */
export function isUnspecifiedHost(host: string): boolean {
  const h = bareHost(host)
  const v4 = ipv4Of(h)
  return v4 === undefined ? ipv6Equals(h, 0) : v4 === 0
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
  const bytes = quad ? quad.slice(1).map(Number) : undefined
  if (bytes !== undefined) return bytes.some((p) => p > 255) ? undefined : toUint32(bytes)
  const b = ipv6Bytes(h)
  if (b === undefined) return undefined
  // ::ffff:a.b.c.d (mapped) and ::a.b.c.d (compatible, deprecated but still parsed): the IPv4 inside.
  const zeros = (from: number, to: number) => b.slice(from, to).every((x) => x === 0)
  const mapped = zeros(0, 10) && b[10] === 0xff && b[11] === 0xff
  const compatible = zeros(0, 12) && !zeros(12, 15)
  return mapped || compatible ? toUint32(b.slice(12)) : undefined
}

const toUint32 = (b: number[]) => ((b[0]! << 24) | (b[1]! << 16) | (b[2]! << 8) | b[3]!) >>> 0

function ipv6Equals(h: string, last: number): boolean {
  const b = ipv6Bytes(h)
  return b?.slice(0, 15).every((x) => x === 0) === true && b[15] === last
}

/** The 16 bytes of an IPv6 address from its text form (`::` compression and a trailing dotted quad allowed). */
export function ipv6Bytes(text: string): number[] | undefined {
  let v6 = text.toLowerCase()
  if (!v6.includes(':') || !/^[0-9a-f:.]+$/.test(v6)) return undefined
  // A trailing dotted quad (::ffff:1.2.3.4): turn it into two groups.
  const quad = /:(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(v6)
  if (quad) {
    const [a, b, c, d] = quad.slice(1).map(Number) as [number, number, number, number]
    if ([a, b, c, d].some((x) => x > 255)) return undefined
    v6 = `${v6.slice(0, quad.index + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const halves = v6.split('::')
  if (halves.length > 2) return undefined
  const parts = (s: string) => (s === '' ? [] : s.split(':'))
  const head = parts(halves[0]!)
  const tail = halves.length === 2 ? parts(halves[1]!) : []
  const missing = 8 - head.length - tail.length
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...tail]
  if (!groups.every((g) => /^[0-9a-f]{1,4}$/.test(g))) return undefined
  return groups.flatMap((g) => {
    const n = Number.parseInt(g, 16)
    return [n >> 8, n & 0xff]
  })
}
