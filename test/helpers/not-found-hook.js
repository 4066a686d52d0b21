// The command_not_found hook of payctl's commands run from src/ (test/helpers/cli.ts): oclif loads a
// hook from a file with Node's own import, which cannot load TypeScript, so this file hands the call
// to the hook the test's module loader loaded from src/cli/not-found.ts.
export default function notFound(opts) {
  return globalThis[Symbol.for('payctl.test.notFound')].call(this, opts)
}
