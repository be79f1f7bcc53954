// Preloaded (`node --import`) into a measured process: on exit, writes the process's peak resident
// set size in KiB (getrusage's ru_maxrss, via process.resourceUsage) to the file LAGRANGE_RSS_FILE
// names, so a bench reads the peak of any process it starts without polling.
import { writeFileSync } from "node:fs";

const file = process.env.LAGRANGE_RSS_FILE;
if (file) {
  process.on("exit", () => {
    try {
      writeFileSync(file, String(process.resourceUsage().maxRSS));
    } catch {
      // A bench without the number says so; the measured process must not fail for it.
    }
  });
}
