import {describe, expect, it} from 'vitest'
import {choosePager, DEFAULT_PAGER, missingProgram} from '../../src/cli/runtime/pager.js'

describe('the pager payctl runs, as git and gh choose it', () => {
  it('takes PAYCTL_PAGER, then PAGER, then less -FRX', () => {
    expect(choosePager({PAYCTL_PAGER: 'most', PAGER: 'more'})?.command).toBe('most')
    expect(choosePager({PAGER: 'more'})?.command).toBe('more')
    expect(choosePager({})?.command).toBe(DEFAULT_PAGER)
  })

  it('pages nothing when the first variable set is empty or cat', () => {
    expect(choosePager({PAYCTL_PAGER: '', PAGER: 'more'})).toBeUndefined()
    expect(choosePager({PAYCTL_PAGER: ' cat '})).toBeUndefined()
    expect(choosePager({PAGER: ''})).toBeUndefined()
  })

  it('gives the pager LESS=FRX and LV=-c unless the user set them', () => {
    expect(choosePager({})?.env).toMatchObject({LESS: 'FRX', LV: '-c'})
    expect(choosePager({LESS: 'S', LV: ''})?.env).toMatchObject({LESS: 'S', LV: ''})
  })

  it('names a program of plain words found on no directory of PATH, and leaves shell syntax to the shell', () => {
    expect(missingProgram('sh -c true', {PATH: '/usr/bin:/bin'})).toBeUndefined()
    expect(missingProgram('no-such-pager -R', {PATH: '/usr/bin:/bin'})).toBe('no-such-pager')
    expect(missingProgram('/nowhere/less', {PATH: '/usr/bin'})).toBe('/nowhere/less')
    expect(missingProgram(`cat > "$OUT"/paged`, {PATH: ''})).toBeUndefined()
  })
})
