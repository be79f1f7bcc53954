/**
 * `lagrange` start-up: how long the built binary takes to print its help and its version, against
 * Node's own start-up (`node -e 0`, the floor no Node program beats) and the workspace's source run
 * (Node with tsx and the "lagrange-source" condition), all measured in the same run as the median
 * wall time of N spawns each, interleaved so that machine noise falls on every command alike.
 */
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { markdownTable } from "../report.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "../../../..");
const CLI = join(ROOT, "apps/cli");
const BUILT = join(CLI, "dist/lagrange.js");
/** The target of issue 14: `lagrange --help` from the built binary. */
export const HELP_TARGET_MS = 200;

export interface StartupRow {
  readonly name: string;
  readonly command: readonly string[];
  readonly medianMs: number;
  readonly minMs: number;
  readonly maxMs: number;
  /** Median over `node -e 0`'s median. */
  readonly ratioToNode: number;
}

export interface CliStartupResult {
  readonly date: string;
  readonly node: string;
  readonly runs: number;
  readonly rebuilt: boolean;
  readonly helpTargetMs: number;
  readonly rows: readonly StartupRow[];
}

export interface CliStartupOptions {
  /** Spawns per command (default 21). */
  readonly runs?: number;
  /** Build dist/ first (default: only when it is missing). */
  readonly build?: boolean;
  readonly onStatus?: (message: string) => void;
}

function spawnMs(argv: readonly string[]): number {
  const started = process.hrtime.bigint();
  const r = spawnSync(argv[0]!, argv.slice(1), { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (r.status !== 0) {
    throw new Error(`${argv.join(" ")} exited ${r.status}: ${r.stderr?.toString().trim()}`);
  }
  return ms;
}

const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

export async function cliStartup(options: CliStartupOptions = {}): Promise<CliStartupResult> {
  const runs = options.runs ?? 21;
  const rebuilt = options.build === true || !existsSync(BUILT);
  if (rebuilt) {
    options.onStatus?.("building apps/cli/dist (node apps/cli/scripts/build.mjs)");
    const r = spawnSync(process.execPath, [join(CLI, "scripts/build.mjs")], { cwd: CLI });
    if (r.status !== 0) throw new Error(`the CLI build failed: ${r.stderr.toString()}`);
  }
  const tsx = pathToFileURL(createRequire(join(CLI, "package.json")).resolve("tsx")).href;
  const node = process.execPath;
  const commands: [string, string[]][] = [
    ["node -e 0 (Node's start-up)", [node, "-e", "0"]],
    ["lagrange --help (built)", [node, BUILT, "--help"]],
    ["lagrange --version (built)", [node, BUILT, "--version"]],
    [
      "lagrange --help (sources, tsx)",
      [node, "--conditions=lagrange-source", "--import", tsx, join(CLI, "src/main.ts"), "--help"],
    ],
  ];
  // One warm-up each (file cache, tsx's transform cache), then rounds over all the commands.
  for (const [, argv] of commands) spawnMs(argv);
  const times = commands.map(() => [] as number[]);
  for (let round = 0; round < runs; round++) {
    commands.forEach(([, argv], k) => {
      times[k]!.push(spawnMs(argv));
    });
    if ((round + 1) % 5 === 0) options.onStatus?.(`round ${round + 1}/${runs}`);
  }
  const floor = median(times[0]!);
  const rows = commands.map(([name, argv], k) => ({
    name,
    command: argv.map((a) => a.replace(ROOT, ".").replace(node, "node")),
    medianMs: median(times[k]!),
    minMs: Math.min(...times[k]!),
    maxMs: Math.max(...times[k]!),
    ratioToNode: median(times[k]!) / floor,
  }));
  return {
    date: new Date().toISOString(),
    node: process.version,
    runs,
    rebuilt,
    helpTargetMs: HELP_TARGET_MS,
    rows,
  };
}

export function cliStartupMarkdown(result: CliStartupResult): string {
  const help = result.rows.find((r) => r.name.startsWith("lagrange --help (built)"));
  const verdict =
    help === undefined
      ? ""
      : `The built \`lagrange --help\`: median ${help.medianMs.toFixed(0)} ms (target ≤ ${result.helpTargetMs} ms: ${help.medianMs <= result.helpTargetMs ? "met" : "**missed**"}), ${help.ratioToNode.toFixed(2)}× Node's own start-up.\n\n`;
  return `# lagrange start-up\n\nMedian wall time of ${result.runs} spawns each (interleaved), ${result.date}, Node ${result.node}: \`pnpm bench cli-startup\`. Ratio: the median over \`node -e 0\`'s.\n\n${markdownTable(
    ["command", "median ms", "min ms", "max ms", "× node -e 0"],
    result.rows.map((r) => [r.name, r.medianMs, r.minMs, r.maxMs, r.ratioToNode]),
    1,
  )}\n${verdict}`;
}
