// Preloaded into a payctl process by the seed benchmark: writes its peak memory (kB) on exit.
import {writeFileSync} from 'node:fs'

process.on('exit', () => {
  if (process.env.PAYCTL_BENCH_RSS_FILE)
    writeFileSync(process.env.PAYCTL_BENCH_RSS_FILE, String(process.resourceUsage().maxRSS))
})
