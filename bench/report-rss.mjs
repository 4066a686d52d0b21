// Preloaded into a payctl process by the seed benchmark: writes its peak memory (kB) and the CPU
// time it used (µs) on exit, as JSON.
import {writeFileSync} from 'node:fs'

process.on('exit', () => {
  if (!process.env.PAYCTL_BENCH_RSS_FILE) return
  const usage = process.resourceUsage()
  writeFileSync(
    process.env.PAYCTL_BENCH_RSS_FILE,
    JSON.stringify({maxRssKb: usage.maxRSS, cpuUs: usage.userCPUTime + usage.systemCPUTime}),
  )
})
