import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  realpathSync,
  type Stats,
  unlinkSync,
} from 'node:fs'
import {join} from 'node:path'
import Conf from 'conf'
import {assertConfigDir, configDir, writePrivateFile} from './config-dir.js'
import {PayctlError} from './errors.js'
import {type ProfileFile, profileFile, profileNotFound, storedProfile} from './profile-file.js'

export * from './profile-file.js'

// Reads that fail rather than wait on a FIFO nobody writes.
const READ = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0)

/** The profile file: one JSON document, mode 0600, every read-modify-write under a lock. */
export class ProfileStore {
  readonly dir: string
  readonly path: string
  #conf: Conf<Record<string, unknown>> | undefined

  constructor(dir: string = configDir()) {
    this.dir = dir
    this.path = join(dir, 'profiles.json')
  }

  read(): ProfileFile {
    return profileFile(this.#load())
  }

  /** Read, change and write the file while holding its lock, so concurrent payctl processes never clobber it. */
  async update<T>(change: (file: ProfileFile) => T | Promise<T>): Promise<T> {
    mkdirSync(this.dir, {recursive: true, mode: 0o700})
    // The lock is a folder payctl makes: a symbolic link there is not one, and would be taken for a
    // lock another process holds, for 15 s, on every command.
    const lock = `${this.path}.lock`
    if (lstatSync(lock, {throwIfNoEntry: false})?.isSymbolicLink()) unlinkSync(lock)
    // Loaded here, not up front: only commands that change the file pay for it.
    const {default: lockfile} = await import('proper-lockfile')
    const release = await lockfile
      .lock(this.path, {
        realpath: false,
        stale: 10_000,
        retries: {retries: 100, minTimeout: 20, maxTimeout: 200, factor: 1.5},
      })
      .catch((cause: unknown) => {
        throw new PayctlError({
          kind: 'config',
          code: 'PROFILE_FILE_LOCKED',
          message: `another payctl process has held the profile file ${this.path} for over 15 s`,
          suggestions: [`If no payctl is running, remove the stale lock: rm -r ${lock}`],
          cause,
        })
      })
    try {
      const raw = this.#load()
      const file = profileFile(raw)
      const result = await change(file)
      // Keys this version does not know (a newer payctl's) are kept.
      this.#store().store = {...raw, currentProfile: file.currentProfile, profiles: file.profiles}
      return result
    } finally {
      await release()
    }
  }

  /** The file's top-level object: empty when there is no file. */
  #load(): Record<string, unknown> {
    try {
      return this.#store().store
    } catch (err) {
      if (!(err instanceof SyntaxError)) throw err
      // Not the parser's message: it quotes the text around the fault, and the file holds secrets.
      throw new PayctlError({
        kind: 'config',
        code: 'PROFILE_FILE_INVALID',
        message: `the profile file ${this.path} is not valid JSON`,
        suggestions: [
          `Fix it, or move it aside (its profiles are then forgotten): mv ${this.path} ${this.path}.bad`,
        ],
      })
    }
  }

  /** conf, on a profile file that is a regular file of this user's only they can read. */
  #store(): Conf<Record<string, unknown>> {
    if (process.platform !== 'win32') assertConfigDir(this.dir)
    // Made 0700 here, before conf makes it with the umask's mode (0775 under umask 002), which
    // every later command would refuse as writable by others.
    if (this.#conf === undefined) mkdirSync(this.dir, {recursive: true, mode: 0o700})
    this.#ownFile()
    this.#conf ??= new Conf<Record<string, unknown>>({
      cwd: this.dir,
      configName: 'profiles',
      configFileMode: 0o600,
      accessPropertiesByDotNotation: false,
      defaults: {profiles: {}},
    })
    return this.#conf
  }

  /**
   * conf writes through a symbolic link (to keep it); payctl keeps credentials only in a file of
   * its own. A link at the profile file is replaced by a copy of what it points to when that is a
   * file of this user's nobody else can read, removed when it points nowhere, and refused
   * otherwise; its target is never changed. A regular file others can read is refused.
   */
  #ownFile(): void {
    const st = lstatSync(this.path, {throwIfNoEntry: false})
    if (st === undefined) return
    if (!st.isSymbolicLink()) {
      this.#check(st, false)
      return
    }
    let fd: number
    try {
      fd = openSync(this.path, READ)
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
      unlinkSync(this.path) // a link to nothing holds nothing
      return
    }
    let text: string
    try {
      this.#check(fstatSync(fd), true)
      text = readFileSync(fd, 'utf8')
    } finally {
      closeSync(fd)
    }
    writePrivateFile(this.path, text)
  }

  /** Refuse a profile file (or what a link there points to) that others could read or have made. */
  #check(st: Stats, link: boolean): void {
    const mode = st.mode & 0o777
    const posix = process.platform !== 'win32'
    const problem = !st.isFile()
      ? 'which is not a regular file'
      : link && posix && st.uid !== process.getuid?.()
        ? 'which belongs to another user'
        : posix && (mode & 0o077) !== 0
          ? `which other users can read (mode ${mode.toString(8)})`
          : undefined
    if (problem === undefined) return
    if (link) {
      const target = realpathSync(this.path)
      throw new PayctlError({
        kind: 'config',
        code: 'PROFILE_FILE_LINK',
        message: `the profile file ${this.path} is a symbolic link to ${target}, ${problem}; payctl keeps credentials only in a file of yours that nobody else can read`,
        suggestions: [`Try: rm ${this.path} (the link only; ${target} is left as it is)`],
      })
    }
    if (!st.isFile()) {
      throw new PayctlError({
        kind: 'config',
        code: 'PROFILE_FILE_INVALID',
        message: `the profile file ${this.path} is not a regular file`,
        suggestions: [`Move it aside: mv ${this.path} ${this.path}.bad`],
      })
    }
    throw new PayctlError({
      kind: 'config',
      code: 'PROFILE_FILE_PERMISSIONS',
      message: `the profile file ${this.path} is readable by other users (mode ${mode.toString(8)}); it holds credentials`,
      suggestions: [`Try: chmod 600 ${this.path}`],
    })
  }
}

/** Make a profile the current one. */
export function useProfile(store: ProfileStore, name: string): Promise<void> {
  return store.update((file) => {
    if (!storedProfile(file, name)) throw profileNotFound(name, file)
    file.currentProfile = name
  })
}

/** Delete a profile (and its credentials) from the file. */
export function removeProfile(store: ProfileStore, name: string): Promise<void> {
  return store.update((file) => {
    if (!storedProfile(file, name)) throw profileNotFound(name, file)
    delete file.profiles[name]
    if (file.currentProfile === name) file.currentProfile = undefined
  })
}
