import type {Feature} from '../feature.js'
import {closeWithServer, recordRequests} from './recorder.js'
import {requestLogRoutes} from './routes.js'
import {isOperator, RequestLogService} from './service.js'
import {FILE_BOUNDS, MEMORY_BOUNDS, RequestLogStore, requestLogPath} from './store.js'

/**
 * The request log: a line for every request the sandbox answers, kept beside the data file (in
 * memory for `:memory:`), and GET /_sandbox/logs to read one's own (docs/sandbox.md#the-request-log).
 */
export const requestLog: Feature = {
  name: 'request-log',
  serve(context) {
    const data = context.settings.dataFile
    const store =
      data === undefined || data === ':memory:'
        ? new RequestLogStore(undefined, MEMORY_BOUNDS)
        : new RequestLogStore(requestLogPath(data), FILE_BOUNDS, (line) => context.log?.(line))
    const service = new RequestLogService(store, context.cursors, isOperator(context))
    return {
      routes: requestLogRoutes(service),
      answers: recordRequests(service),
      attach: (app) => closeWithServer(app, service),
    }
  },
}
