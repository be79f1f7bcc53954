/** Child-process entry: `run-system.ts <system> <job.json> <report.json>`. */
import { readFile, writeFile } from "node:fs/promises";
import { runCrfsuite } from "./crfsuite-child.js";
import { runLagrange } from "./lagrange-child.js";
import type { SystemJob } from "./protocol.js";

const [system, jobFile, reportFile] = process.argv.slice(2);
if (system === undefined || jobFile === undefined || reportFile === undefined) {
  throw new Error("usage: run-system.ts <lagrange|crfsuite> <job.json> <report.json>");
}
const job = JSON.parse(await readFile(jobFile, "utf8")) as SystemJob;
const report = system === "crfsuite" ? await runCrfsuite(job) : await runLagrange(job);
await writeFile(reportFile, JSON.stringify(report));
