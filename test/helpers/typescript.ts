import type {SourceFile} from 'typescript/unstable/ast'
import {API} from 'typescript/unstable/async'
import {createVirtualFileSystem} from 'typescript/unstable/fs'

/**
 * Parse `files` (source text by path relative to the repository root) with TypeScript and give
 * each, with its syntax tree, to `read`; resolves with all that `read` returned. The parser works on
 * an in-memory copy, so the real tree and a test's own made-up files go the same way.
 */
export async function readSources<T>(
  files: Record<string, string>,
  read: (path: string, source: SourceFile) => T[],
): Promise<T[]> {
  const root = '/payctl'
  const config = `${root}/tsconfig.json`
  const tsconfig = {compilerOptions: {noLib: true, noResolve: true, types: []}, files: Object.keys(files)}
  const fs = createVirtualFileSystem({
    [config]: JSON.stringify(tsconfig),
    ...Object.fromEntries(Object.entries(files).map(([path, text]) => [`${root}/${path}`, text])),
  })
  const api = new API({cwd: root, fs})
  try {
    const program = (await api.updateSnapshot({openProjects: [config]})).getProject(config)?.program
    if (!program) throw new Error('TypeScript did not open the project of the files to check')
    const found: T[] = []
    for (const path of Object.keys(files)) {
      const source = await program.getSourceFile(`${root}/${path}`)
      if (!source) throw new Error(`TypeScript did not parse ${path}`)
      found.push(...read(path, source))
    }
    return found
  } finally {
    await api.close()
  }
}
