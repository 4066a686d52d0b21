import {describe, expect, it} from 'vitest'
import {connectableHost, isLocalUrl} from '../../src/contract/loopback.js'
import {bypassesProxy} from '../../src/core/transport.js'

describe('addresses that stay on this machine', () => {
  const local = [
    'http://localhost:4010',
    'http://localhost.:4010',
    'http://LOCALHOST.:4010',
    'http://api.localhost.:4010',
    'http://%6Cocalhost:4010',
    'http://127.0.0.1:4010',
    'http://127.0.0.1.:4010',
    'http://127.1:4010',
    'http://127.255.255.254:4010',
    'http://0x7f.1:4010',
    'http://0177.0.0.1:4010',
    'http://2130706433:4010',
    'http://0.0.0.0:4010',
    'http://0:4010',
    'http://[::1]:4010',
    'http://[0:0:0:0:0:0:0:1]:4010',
    'http://[::]:4010',
    'http://[::ffff:127.0.0.1]:4010',
    'http://[::ffff:7f00:2]:4010',
    'http://[::ffff:0.0.0.0]:4010',
    'http://[::127.0.0.1]:4010',
  ]
  const remote = [
    'http://example.test:4010',
    'http://localhost.example.test:4010',
    'http://126.0.0.1:4010',
    'http://128.0.0.1:4010',
    'http://192.0.2.1:4010',
    'http://[::2:1]:4010',
    'http://[2001:db8::1]:4010',
    'http://[::ffff:192.0.2.1]:4010',
    'not a url',
  ]

  it.each(local)('%s is local and never goes through a proxy', (url) => {
    expect(isLocalUrl(url)).toBe(true)
    expect(bypassesProxy(url, {})).toBe(true)
    expect(bypassesProxy(url, {PAYCTL_PROXY_LOOPBACK: '1'})).toBe(false)
  })

  it.each(remote)('%s is not local', (url) => {
    expect(isLocalUrl(url)).toBe(false)
    expect(bypassesProxy(url, {})).toBe(false)
  })

  it('reaches a server bound to the unspecified address through loopback', () => {
    expect(connectableHost('0.0.0.0')).toBe('127.0.0.1')
    expect(connectableHost('::')).toBe('[::1]')
    expect(connectableHost('[::]')).toBe('[::1]')
    expect(connectableHost('127.0.0.1')).toBe('127.0.0.1')
    expect(connectableHost('::1')).toBe('[::1]')
    expect(connectableHost('192.0.2.7')).toBe('192.0.2.7')
  })
})
