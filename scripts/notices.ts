/**
 * THIRD-PARTY-NOTICES.md: the licence of every package whose code the bundles carry (the CLI's, the
 * library's, the inspector's), as its own licence file words it. Each bundle script records the
 * packages its esbuild metafile names (recordPackages); scripts/build.ts writes the notices once
 * they all have (writeNotices), into the build, which the npm package ships.
 */
import {existsSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {join, resolve} from 'node:path'
import type {Metafile} from 'esbuild'

const ROOT = resolve(import.meta.dirname, '..')
const RECORD = 'third-party-packages.json'
export const NOTICES = 'THIRD-PARTY-NOTICES.md'

/** The folders of the packages in node_modules whose files `metafile` bundled. */
function packagesOf(metafile: Metafile): string[] {
  const dirs = new Set<string>()
  for (const input of Object.keys(metafile.inputs)) {
    const path = input.replace(/^[\w-]+:/, '')
    const at = path.lastIndexOf('node_modules/')
    if (at === -1) continue
    const rest = path.slice(at + 'node_modules/'.length).split('/')
    const name = rest[0]!.startsWith('@') ? rest.slice(0, 2).join('/') : rest[0]!
    dirs.add(resolve(ROOT, path.slice(0, at), 'node_modules', name))
  }
  return [...dirs]
}

/** Add the packages `metafile` bundled to those the build at `build` carries. */
export function recordPackages(build: string, metafile: Metafile): void {
  const file = join(build, RECORD)
  const known: string[] = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : []
  writeFileSync(file, JSON.stringify([...new Set([...known, ...packagesOf(metafile)])].sort()))
}

/** The licence file of the package in `dir`, if it has one. */
function licenceFile(dir: string): string | undefined {
  const name = readdirSync(dir).find((f) => /^(licen[cs]e|copying)(\.(md|txt|markdown))?$/i.test(f))
  return name === undefined ? undefined : join(dir, name)
}

/** Write the notices of the packages recorded for the build at `build`, into it. */
export function writeNotices(build: string): void {
  const file = join(build, RECORD)
  const dirs: string[] = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : []
  rmSync(file, {force: true})
  const byName = new Map<string, string>()
  for (const dir of dirs) {
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
      name: string
      version: string
      license?: string
    }
    const licence = licenceFile(dir)
    const text =
      licence === undefined
        ? `(${pkg.license ?? 'no licence named'}; the package has no licence file)`
        : readFileSync(licence, 'utf8').trim()
    byName.set(
      `${pkg.name}@${pkg.version}`,
      `## ${pkg.name}@${pkg.version} (${pkg.license ?? 'unknown'})\n\n\`\`\`\n${text}\n\`\`\`\n`,
    )
  }
  const sections = [...byName.keys()].sort().map((k) => byName.get(k)!)
  writeFileSync(
    join(build, NOTICES),
    `# Third-party notices\n\npayctl's bundles (dist/bundle, dist/library, dist/inspector) carry the code of these ${sections.length} packages, under their own licences:\n\n${sections.join('\n')}`,
  )
}
