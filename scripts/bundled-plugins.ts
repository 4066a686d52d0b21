/**
 * The oclif plugins whose commands payctl carries as its own: `help` and `autocomplete`. Installed
 * beside payctl they would be runtime dependencies (whose `engines` npm warns about on Node 20) that
 * oclif loads as packages of their own; instead their commands join payctl's in oclif's explicit
 * command discovery, bundled with them (scripts/bundle.ts), and the test suite's configuration adds
 * them the same way (test/helpers/cli.ts). Each command is read where its plugin's manifest says
 * it is: the plugins export no path to them.
 */
import {readFileSync} from 'node:fs'
import {join} from 'node:path'

const BUNDLED_PLUGINS = ['@oclif/plugin-help', '@oclif/plugin-autocomplete'] as const

export interface PluginCommand {
  /** oclif's id: `autocomplete:script`. */
  id: string
  /** The command's module, an absolute path in node_modules. */
  file: string
}

/** The commands of the bundled plugins, as installed in the checkout at `root`, sorted by id. */
export function bundledPluginCommands(root: string): PluginCommand[] {
  return BUNDLED_PLUGINS.flatMap((name) => {
    const dir = join(root, 'node_modules', name)
    const manifest = JSON.parse(readFileSync(join(dir, 'oclif.manifest.json'), 'utf8')) as {
      commands: Record<string, {relativePath: string[]}>
    }
    return Object.entries(manifest.commands).map(([id, c]) => ({id, file: join(dir, ...c.relativePath)}))
  }).sort((a, b) => (a.id < b.id ? -1 : 1))
}
