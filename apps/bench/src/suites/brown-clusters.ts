import { execFile, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import {
  type BrownClusters,
  brownClusters,
  clusterMutualInformation,
  coMembershipF1,
  formatClusterPaths,
  parseClusterPaths,
  type WordClusters,
} from "@lagrange/clusters";
import { openRawText, readPlainTextTokens } from "@lagrange/datasets/node";
import { BENCH_CACHE_DIR, markdownTable, REPO_ROOT, targetsTable } from "../report.js";

const run = promisify(execFile);

const ANCHOR = join(REPO_ROOT, "..", "shared", "anchors", "brown-cluster");
/** `--quick`: the first 100 k tokens of the corpus, C = 100 (seconds per program). */
export const QUICK = { tokens: 100_000, clusters: 100 } as const;
/** Words seen at least this often: a second agreement figure, over the words clusters serve. */
const FREQUENT = 10;
const DEPTHS = [4, 8] as const;

export interface BrownClustersBenchOptions {
  /** A plain text file (one sentence a line) instead of the registry corpus. */
  readonly text?: string;
  /** A registry raw-text corpus (default `brown`). */
  readonly corpus?: string;
  readonly quick?: boolean;
  /** Keep the first whole sentences up to this many tokens (default all; quick 100 k). */
  readonly maxTokens?: number;
  /** C (default 1000; quick 100). */
  readonly clusters?: number;
  readonly minCount?: number;
  /** Also cluster in wcluster's order of equal-count words (read from its log): a second run. */
  readonly sameOrder?: boolean;
  /**
   * Also cluster with equal-count words in reverse first-occurrence order: how much the tie
   * order alone moves Lagrange's own clusters (default: with `quick` only).
   */
  readonly tieSensitivity?: boolean;
  readonly onStatus?: (message: string) => void;
}

export interface Timing {
  readonly wallSeconds: number;
  /** User + system CPU seconds (null where /usr/bin/time is missing for wcluster). */
  readonly cpuSeconds: number | null;
}

export interface Agreement {
  readonly comparison: string;
  readonly words: number;
  readonly f1: number;
  readonly precision: number;
  readonly recall: number;
  readonly f1AtDepth: Readonly<Record<string, number>>;
  /** Over the words seen at least {@link FREQUENT} times. */
  readonly f1Frequent: number;
}

export interface BrownClustersBenchResult {
  readonly suite: "brown-clusters";
  readonly node: string;
  readonly cpu: string;
  readonly setup: {
    readonly input: string;
    readonly sentences: number;
    readonly tokens: number;
    readonly types: number;
    readonly clusters: number;
    readonly minCount: number;
  };
  /** Null when wcluster could not be built or run (the reason in `skipped`). */
  readonly wcluster: (Timing & { readonly mutualInformation: number }) | null;
  readonly lagrange: Timing & { readonly mutualInformation: number; readonly reported: number };
  readonly lagrangeSameOrder: (Timing & { readonly mutualInformation: number }) | null;
  /** Lagrange ÷ wcluster (> 1: slower). */
  readonly ratioWall: number | null;
  readonly ratioCpu: number | null;
  readonly agreements: readonly Agreement[];
  readonly skipped: readonly string[];
  readonly targets: readonly {
    readonly name: string;
    readonly value: string;
    readonly met: boolean | null;
  }[];
}

/** Whole sentences of the input, up to `maxTokens` tokens. */
async function readInput(options: BrownClustersBenchOptions, maxTokens: number) {
  const source =
    options.text === undefined
      ? openRawText(options.corpus ?? "brown")
      : readPlainTextTokens(options.text);
  const sentences: string[][] = [];
  let tokens = 0;
  for await (const sentence of source) {
    if (tokens + sentence.length > maxTokens && sentences.length > 0) break;
    sentences.push(sentence);
    tokens += sentence.length;
  }
  return { sentences, tokens };
}

/** wcluster built once in a copy of the anchor, kept under the bench cache; or why not. */
async function buildWcluster(status: (m: string) => void): Promise<string | { reason: string }> {
  const binary = join(BENCH_CACHE_DIR, "wcluster", "wcluster");
  if (existsSync(binary)) return binary;
  if (!existsSync(join(ANCHOR, "wcluster.cc"))) {
    return { reason: `Liang's wcluster is not at ${ANCHOR}` };
  }
  try {
    await run("g++", ["--version"]);
    await run("make", ["--version"]);
  } catch {
    return { reason: "g++ or make is not installed (apt-get install g++ make)" };
  }
  const work = await mkdtemp(join(tmpdir(), "lagrange-wcluster-"));
  try {
    await cp(ANCHOR, work, { recursive: true });
    status("building wcluster (make, about a minute)");
    await run("make", ["-C", work], { maxBuffer: 64 * 1024 * 1024 });
    await mkdir(join(BENCH_CACHE_DIR, "wcluster"), { recursive: true });
    await cp(join(work, "wcluster"), binary);
    return binary;
  } catch (error) {
    const message = (error as { stderr?: string }).stderr ?? String(error);
    return { reason: `make failed: ${message.trim().split("\n").slice(-3).join(" ")}` };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** Runs a command, timing its wall clock and (through /usr/bin/time) its CPU. */
async function timed(command: string, args: readonly string[], cwd: string): Promise<Timing> {
  const withTime = existsSync("/usr/bin/time");
  const report = join(cwd, "time.txt");
  const started = performance.now();
  await new Promise<void>((resolve, reject) => {
    const child = withTime
      ? spawn("/usr/bin/time", ["-f", "%U %S", "-o", report, command, ...args], {
          cwd,
          stdio: "ignore",
        })
      : spawn(command, args, { cwd, stdio: "ignore" });
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolve() : reject(new Error(`${command} exited with ${code}`)),
    );
  });
  const wallSeconds = (performance.now() - started) / 1000;
  if (!withTime) return { wallSeconds, cpuSeconds: null };
  const [user, system] = (await readFile(report, "utf8")).trim().split(/\s+/).map(Number);
  return { wallSeconds, cpuSeconds: (user ?? 0) + (system ?? 0) };
}

/** Ours, in this process: wall clock and the process's CPU time. */
async function timeOurs(
  sentences: readonly string[][],
  options: { clusters: number; minCount: number; tieOrder?: readonly string[] },
  status: (m: string) => void,
): Promise<{ result: BrownClusters } & Timing> {
  let reported = 0;
  const cpu = process.cpuUsage();
  const started = performance.now();
  const result = await brownClusters(sentences, {
    ...options,
    onProgress: (done, total) => {
      if (done >= reported + total / 10) {
        reported = done;
        status(`  lagrange: ${done} of ${total} merges`);
      }
    },
  });
  const wallSeconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  return { result, wallSeconds, cpuSeconds: (used.user + used.system) / 1e6 };
}

/** wcluster's order of the words it added (its log's "Merging phrase" lines). */
function wclusterOrder(log: string): string[] {
  return Array.from(log.matchAll(/Merging phrase: \d+\/\d+: -?\d+\((.*)\) \[/g), (m) => m[1]!);
}

function frequentOnly(c: WordClusters, minCount: number): WordClusters {
  const lines = formatClusterPaths(c)
    .split("\n")
    .filter((line) => line !== "" && Number(line.split("\t")[2]) >= minCount);
  return parseClusterPaths(`${lines.join("\n")}\n`, "(frequent words)");
}

function agreement(comparison: string, a: WordClusters, b: WordClusters): Agreement {
  const all = coMembershipF1(a, b);
  const f1AtDepth: Record<string, number> = {};
  for (const d of DEPTHS) f1AtDepth[String(d)] = coMembershipF1(a, b, d).f1;
  const frequent = coMembershipF1(frequentOnly(a, FREQUENT), b);
  return {
    comparison,
    words: all.words,
    f1: all.f1,
    precision: all.precision,
    recall: all.recall,
    f1AtDepth,
    f1Frequent: frequent.f1,
  };
}

export async function brownClustersBench(
  options: BrownClustersBenchOptions = {},
): Promise<BrownClustersBenchResult> {
  const status = options.onStatus ?? (() => undefined);
  const quick = options.quick === true;
  const C = options.clusters ?? (quick ? QUICK.clusters : 1000);
  const minCount = options.minCount ?? 1;
  const maxTokens = options.maxTokens ?? (quick ? QUICK.tokens : Number.POSITIVE_INFINITY);
  const input = options.text ?? `registry corpus ${options.corpus ?? "brown"}`;
  const { sentences, tokens } = await readInput(options, maxTokens);
  status(
    `${input}: ${sentences.length} sentences, ${tokens} tokens; C = ${C}, min count ${minCount}`,
  );
  const skipped: string[] = [];
  const work = await mkdtemp(join(tmpdir(), "lagrange-brown-bench-"));
  try {
    // The same tokens for both: one sentence a line.
    const textFile = join(work, "input.txt");
    await writeFile(textFile, sentences.map((s) => `${s.join(" ")}\n`).join(""));

    let wcluster: BrownClustersBenchResult["wcluster"] = null;
    let theirs: WordClusters | undefined;
    let order: string[] | undefined;
    const binary = await buildWcluster(status);
    if (typeof binary === "string") {
      status(`wcluster --c ${C} --min-occur ${minCount} --threads 1 …`);
      const out = join(work, "wcluster-out");
      const timing = await timed(
        binary,
        [
          "--text",
          textFile,
          "--c",
          String(C),
          "--min-occur",
          String(minCount),
          "--threads",
          "1",
          "--output_dir",
          out,
        ],
        work,
      );
      const pathsText = await readFile(join(out, "paths"), "utf8");
      theirs = parseClusterPaths(pathsText, join(out, "paths"));
      order = wclusterOrder(await readFile(join(out, "log"), "utf8"));
      const mutualInformation = await clusterMutualInformation(sentences, theirs);
      wcluster = { ...timing, mutualInformation };
      status(`  wcluster: ${timing.wallSeconds.toFixed(1)} s`);
    } else {
      skipped.push(`wcluster (${binary.reason})`);
    }

    status(`lagrange brownClusters, C = ${C} …`);
    const ours = await timeOurs(sentences, { clusters: C, minCount }, status);
    status(`  lagrange: ${ours.wallSeconds.toFixed(1)} s`);
    const lagrange = {
      wallSeconds: ours.wallSeconds,
      cpuSeconds: ours.cpuSeconds,
      mutualInformation: await clusterMutualInformation(sentences, ours.result),
      reported: ours.result.mutualInformation,
    };
    const agreements: Agreement[] = [];
    let lagrangeSameOrder: BrownClustersBenchResult["lagrangeSameOrder"] = null;
    if (theirs !== undefined) {
      agreements.push(agreement("Lagrange vs wcluster", ours.result, theirs));
      const types = ours.result.words.length;
      if (options.sameOrder !== false && order !== undefined) {
        if (order.length !== Math.max(0, types - Math.min(C, types))) {
          skipped.push(
            `the run in wcluster's order (its log lists ${order.length} added words, expected ${types - Math.min(C, types)})`,
          );
        } else {
          status("lagrange brownClusters in wcluster's order of equal-count words …");
          const same = await timeOurs(
            sentences,
            { clusters: C, minCount, tieOrder: order },
            status,
          );
          lagrangeSameOrder = {
            wallSeconds: same.wallSeconds,
            cpuSeconds: same.cpuSeconds,
            mutualInformation: await clusterMutualInformation(sentences, same.result),
          };
          agreements.push(
            agreement("Lagrange in wcluster's tie order vs wcluster", same.result, theirs),
          );
        }
      }
    }
    if (options.tieSensitivity ?? quick) {
      status("lagrange brownClusters with equal-count words in reverse first-occurrence order …");
      const firstSeen = [...new Set(sentences.flat())].reverse();
      const reversed = await timeOurs(
        sentences,
        { clusters: C, minCount, tieOrder: firstSeen },
        status,
      );
      agreements.push(
        agreement("Lagrange vs Lagrange, reversed tie order", ours.result, reversed.result),
      );
    }
    const ratioWall = wcluster === null ? null : lagrange.wallSeconds / wcluster.wallSeconds;
    const ratioCpu =
      wcluster?.cpuSeconds == null || lagrange.cpuSeconds === null
        ? null
        : lagrange.cpuSeconds / wcluster.cpuSeconds;
    const ratio = ratioCpu ?? ratioWall;
    const own = agreements.find((a) => a.comparison === "Lagrange vs wcluster");
    const same = agreements.find((a) =>
      a.comparison.startsWith("Lagrange in wcluster's tie order"),
    );
    const targets = [
      {
        name: "time within 2× wcluster's on one core",
        value:
          ratio === null ? "—" : `${ratio.toFixed(2)}× (${ratioCpu === null ? "wall" : "CPU"})`,
        met: ratio === null ? null : ratio <= 2,
      },
      {
        name: "co-membership F1 ≥ 0.9 with wcluster (own order of equal-count words)",
        value: own === undefined ? "—" : own.f1.toFixed(3),
        met: own === undefined ? null : own.f1 >= 0.9,
      },
      {
        name: "co-membership F1 ≥ 0.9 with wcluster (wcluster's order of equal-count words)",
        value: same === undefined ? "—" : same.f1.toFixed(3),
        met: same === undefined ? null : same.f1 >= 0.9,
      },
    ];
    return {
      suite: "brown-clusters",
      node: process.version,
      cpu: `${cpus()[0]?.model ?? "unknown"} × ${cpus().length}`,
      setup: {
        input,
        sentences: sentences.length,
        tokens,
        types: ours.result.words.length,
        clusters: C,
        minCount,
      },
      wcluster,
      lagrange,
      lagrangeSameOrder,
      ratioWall,
      ratioCpu,
      agreements,
      skipped,
      targets,
    };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

const seconds = (t: Timing | null) => (t === null ? "—" : t.wallSeconds.toFixed(1));
const cpuSeconds = (t: Timing | null) => (t?.cpuSeconds == null ? "—" : t.cpuSeconds.toFixed(1));

export function brownClustersMarkdown(r: BrownClustersBenchResult): string {
  const s = r.setup;
  const lines = [
    "# Brown clusters: @lagrange/clusters vs Liang's wcluster",
    "",
    `${s.input}: ${s.sentences} sentences, ${s.tokens} tokens, ${s.types} word types${s.minCount > 1 ? ` (seen ≥ ${s.minCount} times)` : ""}; C = ${s.clusters}; both on one core (wcluster --threads 1, built with its Makefile's -O3); ${r.cpu}, Node ${r.node}.`,
    "",
    markdownTable(
      ["system", "wall s", "CPU s", "AMI at C (bits)"],
      [
        [
          "wcluster",
          seconds(r.wcluster),
          cpuSeconds(r.wcluster),
          r.wcluster === null ? "—" : r.wcluster.mutualInformation.toFixed(5),
        ],
        [
          "Lagrange",
          seconds(r.lagrange),
          cpuSeconds(r.lagrange),
          r.lagrange.mutualInformation.toFixed(5),
        ],
        ...(r.lagrangeSameOrder === null
          ? []
          : [
              [
                "Lagrange, wcluster's tie order",
                seconds(r.lagrangeSameOrder),
                cpuSeconds(r.lagrangeSameOrder),
                r.lagrangeSameOrder.mutualInformation.toFixed(5),
              ] as const,
            ]),
      ],
    ),
    `Lagrange ÷ wcluster: ${r.ratioWall === null ? "—" : `${r.ratioWall.toFixed(2)}× wall`}${r.ratioCpu === null ? "" : `, ${r.ratioCpu.toFixed(2)}× CPU`}. AMI: each clustering's average mutual information recomputed from scratch on the same text (wcluster's definitions).`,
    "",
    "Agreement (pairwise co-membership F1 over the words both cluster; leaves = equal bit strings):",
    "",
    markdownTable(
      [
        "comparison",
        "words",
        "F1 leaves",
        "P",
        "R",
        ...DEPTHS.map((d) => `F1 ${d} bits`),
        `F1 words ≥ ${FREQUENT}×`,
      ],
      r.agreements.map((a) => [
        a.comparison,
        a.words,
        a.f1.toFixed(3),
        a.precision.toFixed(3),
        a.recall.toFixed(3),
        ...DEPTHS.map((d) => (a.f1AtDepth[String(d)] ?? 0).toFixed(3)),
        a.f1Frequent.toFixed(3),
      ]),
    ),
    "Both programs add words by decreasing count; wcluster orders words of equal count as its hash table happens to, Lagrange by first occurrence. Given wcluster's order (read from its log), Lagrange makes wcluster's clusters; the first row measures how much the tie order alone moves the clusters (as does the reversed-order row, when run, between two Lagrange runs).",
    "",
    targetsTable(r.targets),
    ...(r.skipped.length === 0 ? [] : ["", `Skipped: ${r.skipped.join("; ")}.`]),
    "",
  ];
  return lines.join("\n");
}
