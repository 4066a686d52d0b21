// The parts of undici that the transport loads instead of its index (see transport.ts); the
// build checks that they are what undici's index exports (scripts/bundle.ts).
declare module 'undici/lib/dispatcher/agent.js' {
  import type {Agent} from 'undici'

  const AgentClass: typeof Agent
  export = AgentClass
}
declare module 'undici/lib/dispatcher/env-http-proxy-agent.js' {
  import type {EnvHttpProxyAgent} from 'undici'

  const EnvHttpProxyAgentClass: typeof EnvHttpProxyAgent
  export = EnvHttpProxyAgentClass
}
declare module 'undici/lib/api/api-request.js' {
  import type {Dispatcher} from 'undici'

  function request(this: Dispatcher, options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData>
  export = request
}
declare module 'undici/lib/dispatcher/dispatcher.js' {
  import type {Dispatcher} from 'undici'

  const DispatcherClass: typeof Dispatcher
  export = DispatcherClass
}
declare module 'undici/lib/api/index.js' {
  import type {Dispatcher} from 'undici'

  /** The request methods undici's index puts on Dispatcher.prototype (`connect` among them). */
  const api: Pick<Dispatcher, 'request' | 'stream' | 'pipeline' | 'upgrade' | 'connect'>
  export = api
}
