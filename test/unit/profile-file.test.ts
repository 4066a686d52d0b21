import {readFileSync} from 'node:fs'
import {describe, expect, it} from 'vitest'
import {
  type ProfileFile,
  ProfileStore,
  removeProfile,
  resolveProfile,
  useProfile,
} from '../../src/core/index.js'
import {tempConfigDir} from '../helpers/cli.js'

const file: ProfileFile = {
  currentProfile: 'local',
  profiles: {
    local: {
      environment: 'local',
      baseUrl: 'http://127.0.0.1:4010',
      auth: {variant: 'A', apiKey: 'pk', apiSecret: 's', partnerId: 'p'},
    },
    prod: {
      environment: 'production',
      baseUrl: 'https://api.example.test',
      auth: {variant: 'B', secretKey: 'live_x'},
    },
  },
}

describe('resolveProfile', () => {
  it('takes the current profile from the file', () => {
    const p = resolveProfile(file, {}, {})
    expect(p).toMatchObject({
      name: 'local',
      kind: 'local',
      baseUrl: 'http://127.0.0.1:4010',
      sources: {profile: 'file', baseUrl: 'file'},
    })
  })
  it('without a profile file or PAYCTL_ENV, takes the environment from the URL and the key', () => {
    const none: ProfileFile = {profiles: {}}
    const remote = 'https://api.example.test'
    expect(resolveProfile(none, {}, {PAYCTL_BASE_URL: remote, PAYCTL_SECRET_KEY: 'live_x'})).toMatchObject({
      environment: 'production',
      kind: 'production',
    })
    expect(
      resolveProfile(
        none,
        {},
        {
          PAYCTL_BASE_URL: remote,
          PAYCTL_API_KEY: 'pk_live_x',
          PAYCTL_API_SECRET: 's',
          PAYCTL_PARTNER_ID: 'p',
        },
      ),
    ).toMatchObject({kind: 'production'})
    expect(resolveProfile(none, {}, {PAYCTL_BASE_URL: remote, PAYCTL_SECRET_KEY: 'test_x'}).kind).toBe(
      'sandbox',
    )
    expect(
      resolveProfile(none, {}, {PAYCTL_BASE_URL: 'http://localhost:4010', PAYCTL_SECRET_KEY: 'test_x'}).kind,
    ).toBe('local')
    expect(resolveProfile(none, {}, {PAYCTL_SECRET_KEY: 'test_x'})).toMatchObject({
      kind: 'local',
      baseUrl: 'http://127.0.0.1:4010',
    })
    // Named, the environment is what it says.
    expect(
      resolveProfile(none, {}, {PAYCTL_BASE_URL: remote, PAYCTL_SECRET_KEY: 'live_x', PAYCTL_ENV: 'staging'})
        .kind,
    ).toBe('sandbox')
  })
  it('lets a flag beat PAYCTL_PROFILE, which beats the file', () => {
    expect(resolveProfile(file, {}, {PAYCTL_PROFILE: 'prod'}).name).toBe('prod')
    expect(resolveProfile(file, {profile: 'local'}, {PAYCTL_PROFILE: 'prod'}).name).toBe('local')
  })
  it('lets env credentials replace the file’s wholesale and says so', () => {
    const p = resolveProfile(file, {}, {PAYCTL_SECRET_KEY: 'test_abc'})
    expect(p.auth).toEqual({variant: 'B', secretKey: 'test_abc', partnerId: undefined})
    expect(p.sources.credentials).toBe('env')
  })
  it('treats a lone test_/live_ PAYCTL_API_KEY as a Variant B key', () => {
    expect(resolveProfile(file, {}, {PAYCTL_API_KEY: 'test_abc'}).auth?.variant).toBe('B')
  })
  it('classifies production by name whatever the URL', () => {
    expect(resolveProfile(file, {}, {PAYCTL_ENV: 'production'}).kind).toBe('production')
    expect(resolveProfile(file, {profile: 'prod'}, {}).kind).toBe('production')
  })
  it('names the missing profile and how to create it', () => {
    expect(() => resolveProfile(file, {profile: 'nope'}, {})).toThrow(/no profile named "nope"/)
  })
})

describe('profile names', () => {
  const SPECIAL = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'a.b']
  const local = {environment: 'local', baseUrl: 'http://127.0.0.1:4010'}

  it('stores, reads back, switches to and removes a profile of any name, Object.prototype’s included', async () => {
    const temp = tempConfigDir()
    try {
      const store = new ProfileStore(temp.dir)
      await store.update((f) => {
        for (const name of SPECIAL) f.profiles[name] = {...local, baseUrl: `http://127.0.0.1:4010/${name}`}
      })
      const saved = JSON.parse(readFileSync(store.path, 'utf8')) as {profiles: object}
      expect(Object.keys(saved.profiles).sort()).toEqual([...SPECIAL].sort())
      const read = new ProfileStore(temp.dir).read()
      expect(Object.keys(read.profiles).sort()).toEqual([...SPECIAL].sort())
      for (const name of SPECIAL) {
        await useProfile(store, name)
        const p = resolveProfile(store.read(), {}, {})
        expect(p).toMatchObject({name, stored: true, baseUrl: `http://127.0.0.1:4010/${name}`})
      }
      for (const name of SPECIAL) await removeProfile(store, name)
      expect(Object.keys(store.read().profiles)).toEqual([])
      expect(store.read().currentProfile).toBeUndefined()
    } finally {
      temp.cleanup()
    }
  })

  it('finds no profile under a name the file does not hold, Object.prototype’s included', async () => {
    const temp = tempConfigDir()
    try {
      const store = new ProfileStore(temp.dir)
      await store.update((f) => {
        f.profiles.local = local
      })
      for (const name of ['__proto__', 'constructor', 'toString']) {
        expect(() => resolveProfile(store.read(), {profile: name}, {}), name).toThrow(
          `no profile named "${name}"`,
        )
        expect(() => resolveProfile(store.read(), {}, {PAYCTL_PROFILE: name}), name).toThrow(
          `no profile named "${name}" (from PAYCTL_PROFILE)`,
        )
        // A file written by hand (or an older payctl) can name one as current.
        expect(() => resolveProfile({currentProfile: name, profiles: {}}, {}, {}), name).toThrow(
          `no profile named "${name}" (from the profile file)`,
        )
        await expect(useProfile(store, name), name).rejects.toMatchObject({code: 'PROFILE_NOT_FOUND'})
        await expect(removeProfile(store, name), name).rejects.toMatchObject({code: 'PROFILE_NOT_FOUND'})
      }
      expect(store.read()).toMatchObject({currentProfile: undefined, profiles: {local}})
    } finally {
      temp.cleanup()
    }
  })
})
