import {lstatSync} from 'node:fs'
import {isLocalUrl} from '../contract/loopback.js'
import {PayctlClient} from './client.js'
import {configDirProblem} from './config-dir.js'
import {PayctlError} from './errors.js'
import {
  credentialsFromEnv,
  type ProfileOverrides,
  type ProfileStore,
  type ResolvedProfile,
  resolveProfile,
  storedProfile,
} from './profiles.js'
import {redactText} from './redact.js'
import {status as sessionStatus} from './session.js'
import {bypassesProxy, Connections, proxySettings, Transport} from './transport.js'

/** One line of `payctl doctor`: what was checked, how it went, and how to mend it. */
export interface Check {
  name: string
  status: 'pass' | 'warn' | 'fail'
  detail: string
  fix?: string | undefined
}

const fromError = (name: string, err: unknown): Check => {
  const e = err instanceof PayctlError ? err : undefined
  return {name, status: 'fail', detail: e ? `${e.code}: ${e.message}` : String(err), fix: e?.suggestions[0]}
}

// Webhook signatures and token expiry both allow 300 s; past a tenth of that, say so.
const SKEW_FAIL_S = 300
const SKEW_WARN_S = 30

/**
 * Check what support staff check first when payctl misbehaves: the profile file, which
 * credentials are in effect and from where, proxies, reachability, clock skew against the
 * service, the token's expiry, and whether the credentials work.
 */
export async function runDoctor(
  store: ProfileStore,
  overrides: ProfileOverrides,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Check[]> {
  const checks: Check[] = []
  // Every command refuses a config dir others can write: nothing else is worth checking then.
  const dirProblem = configDirProblem(store.dir)
  if (dirProblem !== undefined) {
    return [{name: 'config dir', status: 'fail', detail: dirProblem, fix: `Try: chmod 700 ${store.dir}`}]
  }
  checks.push(profileFileCheck(store))
  checks.push({name: 'config dir', status: 'pass', detail: `${store.dir}: only you can write it`})

  let profile: ResolvedProfile
  try {
    profile = resolveProfile(store.read(), overrides, env)
  } catch (err) {
    checks.push(fromError('profile', err))
    return checks
  }
  const s = profile.sources
  checks.push({
    name: 'profile',
    status: 'pass',
    detail: `"${profile.name}" (${s.profile}), environment ${profile.environment} [${profile.kind}] (${s.environment}), ${profile.baseUrl} (${s.baseUrl})`,
  })
  checks.push(credentialsCheck(profile, store, env))
  checks.push(proxyCheck([profile.baseUrl, ...(profile.authUrl ? [profile.authUrl] : [])], env))

  const connections = new Connections(env)
  try {
    return await serviceChecks(checks, profile, store, connections)
  } finally {
    await connections.close()
  }
}

/** What the service answers: reachability, clock skew and, with credentials, the token and a call. */
async function serviceChecks(
  checks: Check[],
  profile: ResolvedProfile,
  store: ProfileStore,
  connections: Connections,
): Promise<Check[]> {
  const reach = await reachability(profile.baseUrl, connections)
  checks.push(reach.check)
  if (reach.serverTime !== undefined) checks.push(skewCheck(reach.serverTime, reach.localTime))

  if (!profile.auth) return checks
  const client = new PayctlClient({profile, store, retries: 0, timeoutMs: 10_000, connections})
  const token = client.tokens.cached()
  if (profile.auth.variant === 'A') {
    if (!token)
      checks.push({
        name: 'token',
        status: 'warn',
        detail: 'no cached access token yet; one is obtained on the next call',
      })
    else {
      const left = (Date.parse(token.expiresAt) - Date.now()) / 1000
      checks.push(
        left > 0
          ? {
              name: 'token',
              status: 'pass',
              detail: `expires in ${Math.floor(left / 3600)} h ${Math.floor((left % 3600) / 60)} min (${token.expiresAt})`,
            }
          : {
              name: 'token',
              status: 'warn',
              detail: `expired at ${token.expiresAt}; renewed on the next call`,
            },
      )
    }
  }
  if (reach.check.status !== 'fail') {
    try {
      await sessionStatus(client)
      checks.push({name: 'credentials work', status: 'pass', detail: 'an authenticated call succeeded'})
    } catch (err) {
      checks.push(fromError('credentials work', err))
    }
  }
  return checks
}

function profileFileCheck(store: ProfileStore): Check {
  let mode: number
  try {
    const st = lstatSync(store.path)
    // A link is judged by the read below, which names it and what it points to.
    if (st.isSymbolicLink()) {
      store.read()
      return {
        name: 'profile file',
        status: 'warn',
        detail: `${store.path} is a symbolic link; the next change replaces it by a file`,
      }
    }
    mode = st.mode & 0o777
  } catch (err) {
    if (err instanceof PayctlError) return fromError('profile file', err)
    return {
      name: 'profile file',
      status: 'warn',
      detail: `${store.path} does not exist (PAYCTL_* variables only)`,
      fix: 'Try: payctl auth login --env local',
    }
  }
  if (process.platform !== 'win32' && (mode & 0o077) !== 0) {
    return {
      name: 'profile file',
      status: 'fail',
      detail: `${store.path} is mode ${mode.toString(8)}: other users can read its credentials`,
      fix: `Try: chmod 600 ${store.path}`,
    }
  }
  try {
    store.read()
  } catch (err) {
    return fromError('profile file', err)
  }
  return {name: 'profile file', status: 'pass', detail: `${store.path} (mode ${mode.toString(8)})`}
}

function credentialsCheck(profile: ResolvedProfile, store: ProfileStore, env: NodeJS.ProcessEnv): Check {
  const auth = profile.auth
  if (!auth) {
    return {
      name: 'credentials',
      status: 'fail',
      detail: `none for profile "${profile.name}"`,
      fix: `Try: payctl auth login --env ${profile.environment}`,
    }
  }
  const kind =
    auth.variant === 'A'
      ? `partner credentials (API key ${auth.apiKey}, partner ${auth.partnerId})`
      : 'a secret API key'
  const fileAuth = storedProfile(store.read(), profile.name)?.auth
  if (profile.sources.credentials === 'env' && fileAuth && credentialsFromEnv(env)) {
    return {
      name: 'credentials',
      status: 'warn',
      detail: `${kind} from PAYCTL_* variables, overriding the ones in the profile file`,
      fix: 'Unset PAYCTL_API_KEY, PAYCTL_API_SECRET, PAYCTL_PARTNER_ID and PAYCTL_SECRET_KEY to use the file',
    }
  }
  return {
    name: 'credentials',
    status: 'pass',
    detail: `${kind} from ${profile.sources.credentials === 'env' ? 'PAYCTL_* variables' : 'the profile file'}`,
  }
}

/**
 * Which proxy, if any, sees payctl's requests. A proxy that would see a request to this machine, or
 * any plain-http request (its credentials travel in clear), is a warning: it reads the secret.
 */
function proxyCheck(urls: string[], env: NodeJS.ProcessEnv): Check {
  // Read as the transport reads them, so that the check names the proxy requests really take.
  const {httpsProxy: https, httpProxy: http} = proxySettings(env)
  const noProxy = env.no_proxy ?? env.NO_PROXY
  if (!https && !http) return {name: 'proxy', status: 'pass', detail: 'none set; connecting directly'}
  const shown = (v: string | undefined) => (v ? redactText(v.replace(/\/\/[^@/]*@/, '//***@')) : 'unset')
  const routes = urls.map((url) => {
    const proxy = url.startsWith('https:') ? https || http : http
    const host = new URL(url).hostname
    const exempt =
      bypassesProxy(url, env) ||
      (noProxy ?? '')
        .split(',')
        .map((h) => h.trim().replace(/^\*?\./, ''))
        .some((h) => h === '*' || (h !== '' && (host === h || host.endsWith(`.${h}`))))
    const via = exempt || !proxy ? undefined : proxy
    return {url, host, via, exposed: via !== undefined && (isLocalUrl(url) || url.startsWith('http:'))}
  })
  const exposed = routes.find((r) => r.exposed)
  const detail = `HTTPS_PROXY ${shown(https)}, HTTP_PROXY ${shown(http)}, NO_PROXY ${noProxy ?? 'unset'}: ${routes
    .map((r) => `${r.host} is reached ${r.via === undefined ? 'directly' : `through ${shown(r.via)}`}`)
    .join('; ')}`
  if (exposed === undefined) return {name: 'proxy', status: 'pass', detail}
  return {
    name: 'proxy',
    status: 'warn',
    detail: `${detail}; the proxy sees ${exposed.url}'s credentials in clear`,
    fix: isLocalUrl(exposed.url)
      ? 'Unset PAYCTL_PROXY_LOOPBACK: requests to this machine then go directly'
      : `Use an https:// base URL, or add ${exposed.host} to NO_PROXY`,
  }
}

async function reachability(
  baseUrl: string,
  connections: Connections,
): Promise<{check: Check; serverTime?: number; localTime: number}> {
  const transport = new Transport({retries: 0, timeoutMs: 5_000, connections})
  const started = performance.now()
  try {
    const res = await transport.send({method: 'GET', url: `${baseUrl}/v1/`, headers: {}}, {retry: false})
    const ms = Math.round(performance.now() - started)
    const date = res.headers.date
    const serverTime = typeof date === 'string' ? Date.parse(date) : undefined
    return {
      check: {
        name: 'reachability',
        status: 'pass',
        detail: `${baseUrl} answered HTTP ${res.status} in ${ms} ms`,
      },
      serverTime: Number.isNaN(serverTime) ? undefined : serverTime,
      localTime: Date.now(),
    }
  } catch (err) {
    return {check: fromError('reachability', err), localTime: Date.now()}
  }
}

function skewCheck(serverTime: number, localTime: number): Check {
  // The Date header has one-second resolution: differences under a second are noise.
  const skew = Math.round((localTime - serverTime) / 1000)
  const detail =
    skew === 0
      ? 'this machine and the service agree to the second'
      : `this machine is ${Math.abs(skew)} s ${skew > 0 ? 'ahead of' : 'behind'} the service`
  if (Math.abs(skew) > SKEW_FAIL_S) {
    return {
      name: 'clock skew',
      status: 'fail',
      detail: `${detail}: tokens look expired and webhook signatures fall outside the 300 s tolerance`,
      fix: 'Sync the clock (e.g. enable NTP: timedatectl set-ntp true)',
    }
  }
  if (Math.abs(skew) > SKEW_WARN_S)
    return {name: 'clock skew', status: 'warn', detail, fix: 'Sync the clock (e.g. enable NTP)'}
  return {name: 'clock skew', status: 'pass', detail}
}
