import {
  CSRF_HEADER,
  INSPECTOR_API,
  INSPECTOR_COOKIE,
  INSPECTOR_LINK,
  INSPECTOR_LINKS,
  INSPECTOR_PATH,
  INSPECTOR_READS,
} from '../inspector.js'
import {SANDBOX_ADMIN_SCOPE} from './scopes.js'

type Json = Record<string, unknown>

/**
 * The browser inspector in the OpenAPI document: a sandbox extension, and no API. Its routes
 * answer a signed-in browser (the session cookie), changes also need the page's CSRF token; they
 * are listed so that nothing the sandbox serves goes unsaid (docs/inspector.md).
 */

const cookie = [{inspectorSession: []}]
const json = (description: string, schema: Json = {type: 'object'}): Json => ({
  description,
  content: {'application/json': {schema}},
})
const refusals: Json = {
  '401': json('SIGN_IN_REQUIRED: no live session cookie'),
  '404': json('NOT_FOUND: no such record for the signed-in partner'),
}
const changeRefusals: Json = {
  ...refusals,
  '403': json(`CSRF_TOKEN_INVALID: no ${CSRF_HEADER} header of the session, or sent from another site`),
}
const csrf = {
  name: CSRF_HEADER,
  in: 'header',
  required: true,
  schema: {type: 'string'},
  description: "the session's CSRF token, from the page",
}
const idParam = {name: 'id', in: 'path', required: true, schema: {type: 'string'}}

function operation(operationId: string, summary: string, extra: Json = {}): Json {
  return {operationId, summary, tags: ['inspector'], 'x-sandbox-extension': true, security: cookie, ...extra}
}

const html = (description: string): Json => ({
  description,
  content: {'text/html': {schema: {type: 'string'}}},
})

/** The inspector's paths, below the sandbox's base address. */
export function inspectorPaths(): Record<string, Record<string, Json>> {
  return {...sessionPaths(), ...dataPaths(), ...changePaths()}
}

/** Signing in and out. */
function sessionPaths(): Record<string, Record<string, Json>> {
  return {
    [`${INSPECTOR_PATH}/sign-in`]: {
      get: operation('inspectorSignInForm', 'the sign-in form', {
        security: [],
        responses: {'200': html('the form')},
      }),
      post: operation(
        'inspectorSignIn',
        "sign in with the partner's API key and secret; sets the HttpOnly, SameSite=Strict session cookie",
        {
          security: [],
          requestBody: {
            required: true,
            content: {
              'application/x-www-form-urlencoded': {
                schema: {
                  type: 'object',
                  required: ['api_key', 'api_secret'],
                  properties: {
                    api_key: {type: 'string'},
                    api_secret: {type: 'string'},
                    next: {type: 'string'},
                  },
                },
              },
            },
          },
          responses: {
            '303': {description: 'signed in: back to `next`, a page of the inspector'},
            '401': html('refused: the form again, saying why'),
            '403': html('posted from another site'),
          },
        },
      ),
    },
    ...linkPaths(),
    [`${INSPECTOR_PATH}/sign-out`]: {
      post: operation('inspectorSignOut', 'end the session', {
        parameters: [csrf],
        responses: {'204': {description: 'signed out'}, ...changeRefusals},
      }),
    },
  }
}

/** One-time sign-in links (`payctl sandbox ui`): minted with the control routes' credentials, followed by a browser. */
function linkPaths(): Record<string, Record<string, Json>> {
  const loopbackOnly = 'answered only to a socket from loopback, whatever address the sandbox listens on'
  return {
    [INSPECTOR_LINKS]: {
      post: operation(
        'inspectorSignInLinkCreate',
        `a one-time sign-in link for the caller's partner, valid for 60 seconds; ${loopbackOnly}`,
        {
          security: [{accessToken: [SANDBOX_ADMIN_SCOPE]}, {secretKey: []}],
          responses: {
            '201': json('the link', {
              type: 'object',
              required: ['url', 'expiresAt'],
              properties: {
                url: {type: 'string', format: 'uri'},
                expiresAt: {type: 'string', format: 'date-time'},
              },
            }),
            '401': json('no credentials, or refused ones'),
            '403': json('INSUFFICIENT_PERMISSIONS: not from loopback, or a token without the scope'),
          },
        },
      ),
    },
    [INSPECTOR_LINK]: {
      get: operation('inspectorSignInLinkFollow', `sign this browser in with a link, once; ${loopbackOnly}`, {
        security: [],
        parameters: [{name: 'token', in: 'query', required: true, schema: {type: 'string'}}],
        responses: {
          '303': {description: 'signed in (the session cookie set): to the inspector'},
          '401': html(
            'the link was used already, has expired, or was never made: the sign-in form, saying so',
          ),
          '403': html('not from loopback'),
        },
      }),
    },
  }
}

/** What the pages read. */
function dataPaths(): Record<string, Record<string, Json>> {
  return {
    [`${INSPECTOR_API}/session`]: {
      get: operation('inspectorSession', 'who is signed in, and the CSRF token of the session', {
        responses: {'200': json('the session'), ...refusals},
      }),
    },
    [`${INSPECTOR_API}/read/{operation}`]: {
      get: operation(
        'inspectorRead',
        "run one of the API's read operations for the signed-in partner; the query is the operation's, `id` its path's",
        {
          parameters: [
            {
              name: 'operation',
              in: 'path',
              required: true,
              schema: {type: 'string', enum: [...INSPECTOR_READS]},
            },
          ],
          responses: {'200': json("the operation's record"), ...refusals},
        },
      ),
    },
    [`${INSPECTOR_API}/search`]: {
      get: operation(
        'inspectorSearch',
        'where an id (usr_, wal_, txn_, evt_, req_), an email or a name leads',
        {
          parameters: [{name: 'q', in: 'query', required: true, schema: {type: 'string'}}],
          responses: {'200': json('found (a page), users (several), or none'), ...refusals},
        },
      ),
    },
    [`${INSPECTOR_API}/users/{id}/timeline`]: {
      get: operation('inspectorTimeline', "a page of a user's timeline, newest first", {
        parameters: [idParam, {name: 'cursor', in: 'query', schema: {type: 'string'}}],
        responses: {'200': json('{lines, nextCursor}'), ...refusals},
      }),
    },
    [`${INSPECTOR_API}/stream`]: {
      get: operation('inspectorStream', "server-sent events: `change` whenever the partner's data changed", {
        responses: {
          '200': {description: 'an event stream', content: {'text/event-stream': {schema: {type: 'string'}}}},
          ...refusals,
        },
      }),
    },
  }
}

/** The two changes, which need the CSRF token. */
function changePaths(): Record<string, Record<string, Json>> {
  return {
    [`${INSPECTOR_API}/events/{id}/resend`]: {
      post: operation('inspectorResend', 'deliver an event again (as POST /v1/events/{id}/resend)', {
        parameters: [idParam, csrf],
        responses: {'201': json('the new deliveries'), ...changeRefusals},
      }),
    },
    [`${INSPECTOR_API}/clock/advance`]: {
      post: operation('inspectorAdvance', "move the partner's clock (as POST /_sandbox/clock/advance)", {
        parameters: [csrf],
        requestBody: {
          content: {
            'application/json': {
              schema: {type: 'object', properties: {seconds: {type: 'integer'}, to: {type: 'string'}}},
            },
          },
        },
        responses: {'200': json('the clock'), ...changeRefusals},
      }),
    },
  }
}

/** The session cookie, as a security scheme of the document. */
export const INSPECTOR_SECURITY_SCHEME: Json = {
  type: 'apiKey',
  in: 'cookie',
  name: INSPECTOR_COOKIE,
  description: `the browser inspector's session (HttpOnly, SameSite=Strict, Path=${INSPECTOR_PATH}), from its sign-in form`,
}
