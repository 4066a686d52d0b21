import {afterAll, beforeAll, describe, expect, test} from 'vitest'
import {UserSchema} from '../../src/contract/users.js'
import {start, type TestSandbox} from './helpers.js'

describe('users', () => {
  let t: TestSandbox
  beforeAll(async () => {
    t = await start()
  })
  afterAll(() => t.close())

  test('creates a user from the snake_case form, under the caller partner', async () => {
    const res = await t.post('/v1/users', {
      email: 'ada@example.com',
      first_name: 'Ada',
      last_name: 'Lovelace',
      external_id: 'crm-1',
    })
    expect(res.status).toBe(201)
    const user = UserSchema.parse(res.body.data)
    expect(user).toMatchObject({
      email: 'ada@example.com',
      first_name: 'Ada',
      last_name: 'Lovelace',
      partner_id: t.creds.partnerId,
      external_id: 'crm-1',
    })
    expect(user.id).toMatch(/^usr_[0-9a-f]{24}$/)
    expect(Date.parse(user.created_at)).not.toBeNaN()
  })

  test('creates a user from the camelCase SDK form', async () => {
    const res = await t.post('/v1/users', {
      email: 'grace@example.com',
      firstName: 'Grace',
      lastName: 'Hopper',
      partnerId: t.creds.partnerId,
    })
    expect(res.status).toBe(201)
    expect(res.body.data).toMatchObject({first_name: 'Grace', last_name: 'Hopper', external_id: null})
  })

  test('refuses a body that mixes the two forms', async () => {
    const res = await t.post('/v1/users', {email: 'x@example.com', first_name: 'X', lastName: 'Y'})
    expect(res.status).toBe(400)
    expect(res.body.error.code).toBe('VALIDATION_ERROR')
    expect(res.body.error.message).toMatch(/not both/)
  })

  test('refuses to create a user for another partner', async () => {
    const res = await t.post('/v1/users', {
      email: 'x@example.com',
      first_name: 'X',
      last_name: 'Y',
      partner_id: 'partner_other',
    })
    expect(res.status).toBe(403)
    expect(res.body.error).toMatchObject({
      code: 'INSUFFICIENT_PERMISSIONS',
      details: {field: 'partner_id', value: 'partner_other'},
    })
  })

  test('names the invalid field', async () => {
    const res = await t.post('/v1/users', {email: 'not-an-email', first_name: 'X', last_name: 'Y'})
    expect(res.status).toBe(400)
    expect(res.body.error.details.field).toBe('email')
    expect(res.body.error.details.issues).toEqual([
      {path: 'email', code: 'invalid_format', message: expect.any(String)},
    ])
  })

  test('gets a user by id', async () => {
    const id = await t.user({email: 'get@example.com'})
    const res = await t.get(`/v1/users/${id}`)
    expect(res.status).toBe(200)
    expect(res.body.data).toMatchObject({id, email: 'get@example.com'})
  })

  test('answers 404 NOT_FOUND for an unknown user', async () => {
    const res = await t.get('/v1/users/usr_000000000000000000000000')
    expect(res.status).toBe(404)
    expect(res.body.error).toMatchObject({
      code: 'NOT_FOUND',
      details: {resource: 'user', id: 'usr_000000000000000000000000'},
    })
  })
})
