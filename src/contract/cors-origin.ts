/**
 * Whether an origin may be allowed: the scheme, host and port a browser sends in `Origin`, and
 * nothing else; `*` never, nor `null` (sandboxed frames and files, which any page can make).
 */
export function corsOriginProblem(origin: string): string | undefined {
  if (origin === '*' || origin === 'null')
    return `${origin} is not an origin: name each one, e.g. http://localhost:3000`
  let url: URL
  try {
    url = new URL(origin)
  } catch {
    return `${origin} is not an origin: write it as a browser sends it, e.g. http://localhost:3000`
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `${origin}: only http and https origins`
  if (url.origin !== origin) return `${origin} is not an origin: write it as ${url.origin}`
  return undefined
}
