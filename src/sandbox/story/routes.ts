import {endpoints} from '../../contract/api/endpoints.js'
import {partnerOf, type RouteSpec, route, type SandboxContext} from '../context.js'
import {StoryService} from './service.js'

/** POST /_sandbox/story: a customer's story, loaded for the caller's partner. */
export function storyRoutes(ctx: Pick<SandboxContext, 'database' | 'clock' | 'settings'>): RouteSpec[] {
  const stories = new StoryService(ctx)
  return [
    route({endpoint: endpoints.sandboxLoadStory, run: (input) => stories.load(partnerOf(input), input.body)}),
  ]
}
