import {defineConfig} from 'vitest/config'

export default defineConfig({
  test: {
    // One sandbox for the whole run, started before any test file and stopped after the last.
    globalSetup: ['./sandbox-setup.ts'],
  },
})
