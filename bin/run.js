#!/usr/bin/env node
// The CLI runs from its bundle (`npm run build`, scripts/bundle.ts): a few files to load, not ~600.
const {main} = await import('../dist/bundle/main.js')
await main()
