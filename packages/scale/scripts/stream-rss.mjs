#!/usr/bin/env node
// By hand (not a test): peak RSS and throughput of `lagrange tag --data -` on generated citations
// piped through standard input, at two input sizes and thread counts. Memory should not grow with
// the input (the window bounds it). Usage, from the repository root:
//   node --conditions=lagrange-source --import tsx packages/scale/scripts/stream-rss.mjs [base=5000]
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { formatConll, generateCitationSentences, generateCitations } from "@lagrange/datasets";

const base = Number(process.argv[2] ?? 5000);
const dir = mkdtempSync(join(tmpdir(), "lagrange-stream-rss-"));
const cli = ["--conditions=lagrange-source", "--import", "tsx", "apps/cli/src/main.ts"];
const model = join(dir, "m.model");
const docs = join(dir, "train.docs");
writeFileSync(
  docs,
  `${generateCitations(300, { seed: 1 })
    .map((c) => c.inline)
    .join("\n")}\n`,
);
const train = [
  "train",
  "--data",
  docs,
  "--preset",
  "citation",
  "--max-iterations",
  "20",
  "--out",
  model,
];
const trained = spawnSync(process.execPath, [...cli, ...train], { encoding: "utf8" });
if (trained.status !== 0) throw new Error(trained.stderr);

for (const [scale, threads] of [
  [1, 1],
  [20, 1],
  [1, 2],
  [20, 2],
]) {
  const count = base * scale;
  const args = [
    "-f",
    "%M",
    process.execPath,
    ...cli,
    "tag",
    "--model",
    model,
    "--data",
    "-",
    "--threads",
    String(threads),
  ];
  const child = spawn("/usr/bin/time", args, { stdio: ["pipe", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (c) => (stderr += c));
  const started = performance.now();
  // Generated and written in slices, honouring the pipe's back-pressure: the input never sits whole in memory.
  for (let done = 0; done < count; done += 1000) {
    const text = formatConll(
      generateCitationSentences(Math.min(1000, count - done), { seed: 2 + done }),
    );
    if (!child.stdin.write(text)) await new Promise((r) => child.stdin.once("drain", r));
  }
  child.stdin.end();
  const code = await new Promise((r) => child.on("close", r));
  const seconds = (performance.now() - started) / 1000;
  const lines = stderr.trim().split("\n");
  const rssMiB = Number(lines.at(-1)) / 1024;
  console.log(
    `${count} citations, --threads ${threads}: exit ${code}, peak RSS ${rssMiB.toFixed(0)} MiB (tag process), ${(count / seconds).toFixed(0)} sentences/s wall (${seconds.toFixed(1)} s, generation included); ${lines.find((l) => l.startsWith("tagged")) ?? lines.join(" | ")}`,
  );
}
