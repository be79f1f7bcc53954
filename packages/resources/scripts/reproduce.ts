/**
 * Rebuilds every file the task presets use from the registry's raw text with the library's own
 * builders, each into memory, and compares its bytes with the shipped file; `--write` replaces
 * the shipped files, the manifest and the README's table instead. Exits 1 when a file differs or
 * is missing (without `--write`).
 *
 *   pnpm --filter @lagrange/resources reproduce [--write] [--only NAME,…]
 *
 * It imports the recipes' sources by path: @lagrange/recipes depends on this package, so a
 * dependency back would be a cycle.
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { presetResources } from "../../recipes/src/task-presets/shipped-resources.js";
import type { ShippedResource } from "../src/index.js";

const DATA = fileURLToPath(new URL("../src/data/", import.meta.url));
const MANIFEST = `${DATA}manifest.json`;
const README = fileURLToPath(new URL("../README.md", import.meta.url));
const TABLE_START = "<!-- files: written by `reproduce --write` -->";
const TABLE_END = "<!-- /files -->";

const { values } = parseArgs({
  options: { write: { type: "boolean", default: false }, only: { type: "string" } },
});
const only = values.only?.split(",");
const all = presetResources();
const unknown = (only ?? []).filter((name) => !all.some((r) => r.name === name));
if (unknown.length > 0) {
  process.stderr.write(
    `--only ${unknown.join(",")}: not a preset resource; they are ${all.map((r) => r.name).join(", ")}\n`,
  );
  process.exit(2);
}
const shipped: ShippedResource[] = (
  JSON.parse(readFileSync(MANIFEST, "utf8")) as { files: ShippedResource[] }
).files;

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");
const entries: ShippedResource[] = [];
let failed = false;
for (const resource of all) {
  const before = shipped.find((s) => s.name === resource.name);
  if (only !== undefined && !only.includes(resource.name)) {
    if (before !== undefined) entries.push(before);
    continue;
  }
  process.stderr.write(`${resource.name}: building…\n`);
  const started = performance.now();
  const shown = new Map<string, number>();
  const { text, words } = await resource.build({
    onProgress: (stage, done, total) => {
      const tenth = Math.floor((10 * done) / Math.max(total, 1));
      if (tenth === shown.get(stage)) return;
      shown.set(stage, tenth);
      process.stderr.write(`  ${stage}: ${done}/${total}\n`);
    },
  });
  const seconds = (performance.now() - started) / 1000;
  const bytes = new TextEncoder().encode(text);
  const entry: ShippedResource = {
    name: resource.name,
    bytes: bytes.length,
    sha256: sha256(bytes),
    words,
    recipe: resource.recipe,
  };
  entries.push(entry);
  const file = `${DATA}${resource.name}`;
  const old = existsSync(file) ? readFileSync(file) : undefined;
  const same = old !== undefined && Buffer.compare(old, bytes) === 0;
  const recorded =
    before !== undefined && JSON.stringify(before) === JSON.stringify(entry)
      ? ""
      : ", manifest differs";
  const verdict =
    old === undefined
      ? "not shipped"
      : same
        ? "identical"
        : `differs (shipped ${old.length} bytes, ${sha256(old)})`;
  process.stdout.write(
    `${resource.name}: ${verdict}${recorded}; built ${bytes.length} bytes, ${words} words, sha256 ${entry.sha256}, in ${seconds.toFixed(1)} s\n`,
  );
  if (values.write) writeFileSync(file, bytes);
  else if (!same || recorded !== "") failed = true;
}

const stale = shipped.filter((s) => !all.some((r) => r.name === s.name));
for (const s of stale) {
  process.stdout.write(
    `${s.name}: shipped but no preset uses it${values.write ? "; removed" : ""}\n`,
  );
  if (values.write) rmSync(`${DATA}${s.name}`, { force: true });
  else failed = true;
}
const unlisted = readdirSync(DATA).filter(
  (f) => f !== "manifest.json" && !entries.some((e) => e.name === f),
);
if (unlisted.length > 0) {
  process.stdout.write(`in ${DATA} but not in the manifest: ${unlisted.join(", ")}\n`);
  failed = true;
}
if (values.write) {
  writeFileSync(MANIFEST, formatJson({ files: entries }));
  writeReadmeTable(entries);
}
process.exitCode = failed ? 1 : 0;

/** JSON as the repository's formatter writes it: an array of scalars on one line where it fits. */
function formatJson(value: unknown): string {
  const text = JSON.stringify(value, null, 2).replace(
    /^( *)(.*)\[\n([^[\]{}]*?)\n *\]/gm,
    (whole, indent: string, head: string, items: string) => {
      const line = `${indent}${head}[${items
        .split("\n")
        .map((item) => item.trim())
        .join(" ")}]`;
      return line.length <= 100 ? line : whole;
    },
  );
  return `${text}\n`;
}

/** The README's table of files, between its markers. */
function writeReadmeTable(files: readonly ShippedResource[]): void {
  const readme = readFileSync(README, "utf8");
  const start = readme.indexOf(TABLE_START);
  const end = readme.indexOf(TABLE_END);
  if (start < 0 || end < start) throw new Error(`${README}: no ${TABLE_START} … ${TABLE_END}`);
  const rows = files.map((f) => {
    const r = f.recipe;
    const what =
      r.kind === "brown-clusters"
        ? `Brown clusters, C = ${r.clusters}`
        : `k-means (k = ${r.sizes.join(", ")}) of PPMI-SVD vectors (window ${r.ppmiSvd.window}, ${r.ppmiSvd.dims} dims, seed ${r.seed})`;
    const corpora = r.corpora.map((c) => `\`${c}\``).join(", ");
    return [
      `\`${f.name}\``,
      what,
      corpora,
      `${r.minCount}`,
      `${f.words}`,
      `${f.bytes}`,
      `\`${f.sha256}\``,
    ];
  });
  const head = ["file", "what", "corpora (in order)", "min count", "words", "bytes", "SHA-256"];
  // Padded as the repository's formatter pads a Markdown table.
  const widths = head.map((h, c) => Math.max(h.length, 3, ...rows.map((row) => row[c]!.length)));
  const line = (cells: readonly string[]) =>
    `| ${cells.map((cell, c) => cell.padEnd(widths[c]!)).join(" | ")} |`;
  const table = [line(head), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)].join("\n");
  writeFileSync(
    README,
    `${readme.slice(0, start + TABLE_START.length)}\n\n${table}\n\n${readme.slice(end)}`,
  );
}
