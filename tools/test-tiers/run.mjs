#!/usr/bin/env node
// `pnpm test`: runs every test tier in turn, times each, and records the wall times in
// bench-results/test-tiers.{json,md}, so each run says what the inner loop (`pnpm test:unit`) and
// the whole suite cost. Every tier runs even after one fails, and a failing tier's time is recorded
// too; the exit code is the first failing tier's.
//
// Usage: node tools/test-tiers/run.mjs [tier…]   (default: every tier, in the order below)
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/**
 * The tiers, each a root package.json script (the one place that says how a tier runs).
 * @type {readonly { name: string, script: string, what: string }[]}
 */
const TIERS = [
  { name: "unit", script: "test:unit", what: "vitest: the in-process tests (the inner loop)" },
  {
    name: "integration",
    script: "test:integration",
    what: "vitest: the binary, Redis, signals, whole experiments, README examples, real corpora",
  },
  {
    name: "packages",
    script: "test:packages",
    what: "the packed tarballs as a user installs them",
  },
  { name: "e2e", script: "test:e2e", what: "the playground in Chromium" },
];

const wanted = process.argv.slice(2);
const unknown = wanted.filter((name) => !TIERS.some((tier) => tier.name === name));
if (unknown.length > 0) {
  process.stderr.write(
    `test-tiers: unknown tier ${unknown.join(", ")}; expected one of ${TIERS.map((t) => t.name).join(", ")}\n`,
  );
  process.exit(2);
}
const tiers = wanted.length === 0 ? TIERS : TIERS.filter((tier) => wanted.includes(tier.name));

// Under `pnpm test`, pnpm names itself in npm_execpath; run directly, fetch it as the README does.
// biome-ignore lint/suspicious/noUndeclaredEnvVars: only finds pnpm; no turbo task runs this file
const execPath = process.env.npm_execpath ?? "";
const pnpm = /pnpm\.c?js$/.test(execPath) ? [process.execPath, execPath] : ["npx", "-y", "pnpm@10"];

/** @type {{ name: string, script: string, what: string, seconds: number, exitCode: number }[]} */
const results = [];
for (const tier of tiers) {
  process.stderr.write(`\n== test tier ${tier.name} (pnpm ${tier.script}): ${tier.what}\n`);
  const started = performance.now();
  const [command = "npx", ...prefix] = pnpm;
  const run = spawnSync(command, [...prefix, "-s", tier.script], { cwd: ROOT, stdio: "inherit" });
  const seconds = Math.round((performance.now() - started) / 100) / 10;
  // Killed by a signal (or never started): a failure all the same.
  const exitCode = run.status ?? 1;
  results.push({ ...tier, seconds, exitCode });
  process.stderr.write(
    `== test tier ${tier.name}: ${exitCode === 0 ? "ok" : `FAILED (exit ${exitCode})`} in ${seconds} s\n`,
  );
}

const failed = results.find((r) => r.exitCode !== 0);
const total = Math.round(results.reduce((sum, r) => sum + r.seconds, 0) * 10) / 10;
const report = {
  date: new Date().toISOString(),
  node: process.version,
  cpus: availableParallelism(),
  ok: failed === undefined,
  totalSeconds: total,
  tiers: results,
};
const out = join(ROOT, "bench-results");
mkdirSync(out, { recursive: true });
writeFileSync(join(out, "test-tiers.json"), `${JSON.stringify(report, null, 2)}\n`);
const lines = [
  "# test tiers: what each part of `pnpm test` costs",
  "",
  `Run ${report.date} on Node ${process.version}, ${report.cpus} CPUs: \`node tools/test-tiers/run.mjs\`.`,
  "",
  "| tier | script | result | wall time |",
  "|---|---|---|---|",
  ...results.map(
    (r) =>
      `| ${r.name} | \`pnpm ${r.script}\` | ${r.exitCode === 0 ? "ok" : `**FAIL** (exit ${r.exitCode})`} | ${r.seconds} s |`,
  ),
  `| all | \`pnpm test\` | ${report.ok ? "ok" : "**FAIL**"} | ${total} s |`,
  "",
];
writeFileSync(join(out, "test-tiers.md"), lines.join("\n"));

process.stderr.write("\n== test tiers\n");
for (const r of results) {
  const verdict = r.exitCode === 0 ? "ok" : `FAILED (exit ${r.exitCode})`;
  process.stderr.write(`${r.name.padEnd(12)} ${`${r.seconds} s`.padStart(9)}  ${verdict}\n`);
}
process.stderr.write(
  `${"all".padEnd(12)} ${`${total} s`.padStart(9)}  ${relative(process.cwd(), join(out, "test-tiers.md"))}\n`,
);
process.exit(failed?.exitCode ?? 0);
