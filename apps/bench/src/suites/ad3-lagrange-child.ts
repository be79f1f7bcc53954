/**
 * One round of Lagrange's AD3 on one graph, in a process of its own (see runLagrangeIsolated):
 * `node … ad3-lagrange-child.ts FILE JOB_JSON` prints the run as JSON on stdout.
 */
import { readFile } from "node:fs/promises";
import type { Ad3Options } from "@lagrange/core/dual-decomposition";
import { encodeRun, parseGraph, runLagrange } from "./ad3.js";

const [file, job] = process.argv.slice(2);
if (file === undefined || job === undefined) {
  process.stderr.write("usage: ad3-lagrange-child.ts FILE JOB_JSON\n");
  process.exit(2);
}
const { options, minSampleMs } = JSON.parse(job) as { options: Ad3Options; minSampleMs: number };
const parsed = parseGraph(await readFile(file, "utf8"), file);
process.stdout.write(encodeRun(runLagrange(parsed, options, minSampleMs)));
