/**
 * `pnpm bench scale`: tagging a large corpus the three ways `lagrange` scales — one streaming
 * process, one process on all cores (`--threads 2`), and queue workers on a real Redis (BullMQ) —
 * with Viterbi and with Soft-DD under learned constraints, measured in the same run: tokens per
 * second and peak RSS of every process involved. The corpus is the datasets package's citation
 * generator (default 1,000,000 citations) with flat field labels (authors, title, venue, …), so a
 * run fits a bench session; the model and its constraints are trained by the CLI itself on
 * separate generated citations. Everything runs through the built binary (apps/cli/dist), as a
 * user runs it.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import {
  closeSync,
  createWriteStream,
  existsSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
} from "node:fs";
import { createConnection } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { generateCitations } from "@lagrange/datasets";
import { markdownTable, writeReport } from "../report.js";
import { lineChartSvg } from "../svg.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "../../../..");
const CLI_DIR = join(ROOT, "apps/cli");
const BUILT = join(CLI_DIR, "dist/lagrange.js");
/** Preloaded into every measured process: writes its peak RSS (KiB) where LAGRANGE_RSS_FILE says. */
const RSS_PRELOAD = join(dirname(fileURLToPath(import.meta.url)), "../systems/peak-rss.mjs");

/** The issue's targets, reported beside the figures. */
export const SCALE_TARGETS = {
  /** Peak RSS streaming 20× the input over 1×. */
  rssRatio20x: 1.2,
  threads2Speedup: 1.8,
  twoWorkersSpeedup: 1.7,
  /** 1 − (1 queue worker's throughput / the single process's). */
  queueOverhead: 0.05,
} as const;

/** The top level of a hierarchical citation label: `I-authors/B-person/…` → `I-authors`. */
const fieldLabel = (label: string): string => label.split("/")[0] ?? label;

/** Writes `count` generated citations (seed `seed`) as CoNLL: token [label], blank line between. */
export async function writeCitations(
  file: string,
  count: number,
  seed: number,
  labelled: boolean,
): Promise<{ sentences: number; tokens: number }> {
  const out = createWriteStream(file);
  let tokens = 0;
  const batch = 1000;
  for (let start = 0; start < count; start += batch) {
    // Each slice its own seed: the corpus is the same whatever the batch boundaries of a reader.
    const slice = generateCitations(Math.min(batch, count - start), {
      seed: seed * 1_000_003 + start,
    });
    let text = "";
    for (const c of slice) {
      for (let i = 0; i < c.tokens.length; i++) {
        text += labelled ? `${c.tokens[i]} ${fieldLabel(c.labels[i]!)}\n` : `${c.tokens[i]}\n`;
      }
      text += "\n";
      tokens += c.tokens.length;
    }
    if (!out.write(text)) await once(out, "drain");
  }
  out.end();
  await once(out, "finish");
  return { sentences: count, tokens };
}

function lagrangeArgv(args: readonly string[]): string[] {
  return ["--import", RSS_PRELOAD, BUILT, ...args];
}

function peakMiB(rssFile: string): number {
  return existsSync(rssFile) ? Number(readFileSync(rssFile, "utf8")) / 1024 : Number.NaN;
}

/** Runs the built CLI to the end (stdin from `stdinFile`, stdout to `stdoutFile`); seconds, RSS. */
function runLagrange(
  args: readonly string[],
  work: string,
  io: { stdinFile?: string; stdoutFile?: string } = {},
): { seconds: number; peakRssMiB: number } {
  const rssFile = join(work, `rss-${Math.random().toString(36).slice(2)}.txt`);
  const stdin = io.stdinFile === undefined ? "ignore" : openSync(io.stdinFile, "r");
  const stdout = io.stdoutFile === undefined ? "ignore" : openSync(io.stdoutFile, "w");
  const started = process.hrtime.bigint();
  const r = spawnSync(process.execPath, lagrangeArgv(args), {
    cwd: work,
    env: { ...process.env, LAGRANGE_RSS_FILE: rssFile },
    stdio: [stdin, stdout, "pipe"],
    maxBuffer: 64 * 1024 * 1024,
  });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (typeof stdin === "number") closeSync(stdin);
  if (typeof stdout === "number") closeSync(stdout);
  if (r.status !== 0) {
    throw new Error(
      `lagrange ${args.join(" ")} exited ${r.status}: ${r.stderr?.toString().trim().slice(-2000)}`,
    );
  }
  return { seconds, peakRssMiB: peakMiB(rssFile) };
}

async function redisPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: "127.0.0.1" }, () => socket.write("PING\r\n"));
    socket.once("data", (data) => {
      socket.destroy();
      resolve(data.toString().startsWith("+PONG"));
    });
    socket.once("error", () => resolve(false));
  });
}

/** A throwaway Redis (Debian's redis-server), no persistence. */
async function startRedis(work: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const port = 20000 + Math.floor(Math.random() * 20000);
  const child = spawn(
    "redis-server",
    [
      "--port",
      String(port),
      "--bind",
      "127.0.0.1",
      "--save",
      "",
      "--appendonly",
      "no",
      "--dir",
      work,
    ],
    { stdio: "ignore" },
  );
  for (let i = 0; i < 100 && !(await redisPing(port)); i++) {
    await new Promise((r) => setTimeout(r, 50));
  }
  if (!(await redisPing(port))) throw new Error("redis-server did not start");
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: async () => {
      child.kill("SIGTERM");
      await once(child, "exit");
    },
  };
}

export interface ScaleRow {
  readonly setup: string;
  readonly decoder: string;
  /** Processes × threads tagging. */
  readonly workers: number;
  readonly sentences: number;
  readonly tokens: number;
  readonly seconds: number;
  readonly tokensPerSecond: number;
  /** Peak RSS of each process that tagged, MiB. */
  readonly peakRssMiB: readonly number[];
  /** The output equals the single-process output byte for byte. */
  readonly identical: boolean;
  /**
   * Queue runs: the queue's own rate (`queue status`: tokens over the time from the first shard's
   * start to the last result), which leaves out submitting, worker start-up and collecting.
   */
  readonly queueTokensPerSecond?: number;
}

export interface ScaleResult {
  readonly date: string;
  readonly node: string;
  readonly citations: number;
  readonly tokens: number;
  readonly rss: {
    readonly small: number;
    readonly large: number;
    readonly ratio: number;
    readonly citations: readonly [number, number];
  };
  readonly rows: readonly ScaleRow[];
  readonly targets: typeof SCALE_TARGETS;
}

export interface ScaleOptions {
  /** Generated citations to tag (default 1,000,000). */
  readonly citations?: number;
  /** Decoders (default viterbi and soft-dd). */
  readonly decoders?: readonly string[];
  /** Skip the queue runs (no redis-server). */
  readonly queue?: boolean;
  readonly onStatus?: (message: string) => void;
}

/** Runs the whole scale bench; see the module comment. */
export async function scaleBench(options: ScaleOptions = {}): Promise<ScaleResult> {
  const status = options.onStatus ?? (() => {});
  const citations = options.citations ?? 1_000_000;
  const decoders = options.decoders ?? ["viterbi", "soft-dd"];
  const work = mkdtempSync(join(tmpdir(), "lagrange-scale-"));
  try {
    status("building the CLI (apps/cli/dist)");
    const build = spawnSync(process.execPath, [join(CLI_DIR, "scripts/build.mjs")], {
      encoding: "utf8",
    });
    if (build.status !== 0) throw new Error(`CLI build failed: ${build.stderr}`);

    // A model that leaves room for constraints: few training citations and iterations, so that
    // Soft-DD has violations to repair (a converged model on clean generated data has none).
    status("training the citation model and learning its constraints (the CLI)");
    const train = join(work, "train.conll");
    const dev = join(work, "dev.conll");
    await writeCitations(train, 300, 101, true);
    await writeCitations(dev, 1000, 202, true);
    const model = join(work, "citations.model");
    const constraints = join(work, "constraints.json");
    runLagrange(
      [
        "train",
        "--data",
        train,
        "--format",
        "conll",
        "--preset",
        "citation",
        "--max-iterations",
        "12",
        "--out",
        model,
      ],
      work,
    );
    runLagrange(
      [
        "constraints",
        "learn",
        "--model",
        model,
        "--data",
        dev,
        "--format",
        "conll",
        "--templates",
        "singleton,pairwise",
        "--threshold",
        "0",
        "--out",
        constraints,
      ],
      work,
    );

    const small = Math.max(1, Math.round(citations / 20));
    status(
      `generating ${citations.toLocaleString("en")} citations (and ${small.toLocaleString("en")} for the 1× memory run)`,
    );
    const corpus = join(work, "corpus.conll");
    const smallCorpus = join(work, "corpus-small.conll");
    const { tokens } = await writeCitations(corpus, citations, 1, false);
    await writeCitations(smallCorpus, small, 1, false);

    const decoderArgs = (decoder: string) =>
      decoder === "viterbi" ? [] : ["--decoder", decoder, "--constraints", constraints];
    const rows: ScaleRow[] = [];
    const reference = new Map<string, string>();
    const push = (
      row: Omit<ScaleRow, "tokensPerSecond" | "sentences" | "tokens" | "identical">,
      out: string,
    ) => {
      const bytes = readFileSync(out, "utf8");
      const key = row.decoder;
      if (!reference.has(key)) reference.set(key, bytes);
      const full = {
        ...row,
        sentences: citations,
        tokens,
        tokensPerSecond: tokens / row.seconds,
        identical: reference.get(key) === bytes,
      };
      rows.push(full);
      rmSync(out, { force: true });
      status(
        `${row.setup}, ${row.decoder}: ${Math.round(full.tokensPerSecond).toLocaleString("en")} tokens/s, peak RSS ${row.peakRssMiB.map((m) => m.toFixed(0)).join(" + ")} MiB${full.identical ? "" : " — OUTPUT DIFFERS"}`,
      );
    };

    status("streaming memory: 1× and 20× the input through stdin, one thread, Viterbi");
    const smallRun = runLagrange(
      ["tag", "--model", model, "--data", "-", "--format", "conll"],
      work,
      { stdinFile: smallCorpus, stdoutFile: join(work, "small.out") },
    );

    for (const decoder of decoders) {
      for (const threads of [1, 2]) {
        const out = join(work, `stream-${decoder}-${threads}.out`);
        const run = runLagrange(
          [
            "tag",
            "--model",
            model,
            "--data",
            "-",
            "--format",
            "conll",
            "--threads",
            String(threads),
            ...decoderArgs(decoder),
          ],
          work,
          { stdinFile: corpus, stdoutFile: out },
        );
        push(
          {
            setup: threads === 1 ? "one process, streaming" : "one process, --threads 2",
            decoder,
            workers: threads,
            seconds: run.seconds,
            peakRssMiB: [run.peakRssMiB],
          },
          out,
        );
      }
    }
    const large = rows.find(
      (r) => r.setup === "one process, streaming" && r.decoder === decoders[0],
    );

    if (options.queue !== false) {
      const redis = await startRedis(work);
      try {
        for (const decoder of decoders) {
          for (const count of [1, 2]) {
            const job = `scale-${decoder}-${count}-${Date.now()}`;
            const rssFiles = Array.from({ length: count }, (_, i) =>
              join(work, `worker-${job}-${i}.rss`),
            );
            const workers: ChildProcess[] = rssFiles.map((rssFile) =>
              spawn(process.execPath, lagrangeArgv(["queue", "work", "--redis", redis.url]), {
                cwd: work,
                env: { ...process.env, LAGRANGE_RSS_FILE: rssFile },
                stdio: ["ignore", "ignore", "inherit"],
              }),
            );
            const out = join(work, `${job}.out`);
            const started = process.hrtime.bigint();
            runLagrange(
              [
                "queue",
                "submit",
                "--redis",
                redis.url,
                "--job",
                job,
                "--data",
                corpus,
                "--format",
                "conll",
                "--unlabeled",
                "--model",
                model,
                "--shard-size",
                "2000",
                ...decoderArgs(decoder),
              ],
              work,
            );
            runLagrange(
              ["queue", "collect", "--redis", redis.url, "--job", job, "--out", out],
              work,
            );
            const seconds = Number(process.hrtime.bigint() - started) / 1e9;
            const status = spawnSync(
              process.execPath,
              [BUILT, "queue", "status", "--redis", redis.url, "--job", job, "--json"],
              { cwd: work, encoding: "utf8" },
            );
            const queueTokensPerSecond = (JSON.parse(status.stdout) as { tokensPerSecond: number })
              .tokensPerSecond;
            await Promise.all(
              workers.map(async (w) => {
                w.kill("SIGTERM");
                if (w.exitCode === null) await once(w, "exit");
              }),
            );
            push(
              {
                setup: `queue, ${count} worker${count === 1 ? "" : "s"} (BullMQ, Redis)`,
                decoder,
                workers: count,
                seconds,
                peakRssMiB: rssFiles.map(peakMiB),
                queueTokensPerSecond,
              },
              out,
            );
          }
        }
      } finally {
        await redis.stop();
      }
    }

    const largeRss = large?.peakRssMiB[0] ?? Number.NaN;
    return {
      date: new Date().toISOString(),
      node: process.version,
      citations,
      tokens,
      rss: {
        small: smallRun.peakRssMiB,
        large: largeRss,
        ratio: largeRss / smallRun.peakRssMiB,
        citations: [small, citations],
      },
      rows,
      targets: SCALE_TARGETS,
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

const speedOf = (r: ScaleResult, decoder: string, setup: string) =>
  r.rows.find((row) => row.decoder === decoder && row.setup.startsWith(setup))?.tokensPerSecond;

export function scaleMarkdown(r: ScaleResult): string {
  const lines = [
    "# Tagging at scale",
    "",
    `${r.citations.toLocaleString("en")} generated citations (${r.tokens.toLocaleString("en")} tokens, flat field labels), ${r.date}, Node ${r.node}: \`pnpm bench scale\`. Every run is the built \`lagrange\` binary; peak RSS per tagging process.`,
    "",
    markdownTable(
      [
        "setup",
        "decoder",
        "tokens/s",
        "queue's own tokens/s",
        "seconds",
        "peak RSS (MiB)",
        "same output",
      ],
      r.rows.map((row) => [
        row.setup,
        row.decoder,
        Math.round(row.tokensPerSecond),
        row.queueTokensPerSecond === undefined ? "" : Math.round(row.queueTokensPerSecond),
        row.seconds.toFixed(1),
        row.peakRssMiB.map((m) => m.toFixed(0)).join(" + "),
        row.identical ? "yes" : "**no**",
      ]),
    ),
    "",
    "tokens/s: all tokens over the wall time of the whole run (for the queue: submit, workers, collect). The queue's own rate (`lagrange queue status`) runs from the first shard's start to the last result: it leaves out cutting and storing the shards, worker start-up and writing the output, one-time costs that do not grow with workers.",
    "",
    `Streaming memory: peak RSS ${r.rss.small.toFixed(0)} MiB at ${r.rss.citations[0].toLocaleString("en")} citations, ${r.rss.large.toFixed(0)} MiB at ${r.rss.citations[1].toLocaleString("en")} (20×): ${r.rss.ratio.toFixed(2)}× (target ≤ ${r.targets.rssRatio20x}×).`,
  ];
  const decoders = [...new Set(r.rows.map((row) => row.decoder))];
  for (const d of decoders) {
    const one = speedOf(r, d, "one process, streaming");
    const two = speedOf(r, d, "one process, --threads 2");
    const q1 = speedOf(r, d, "queue, 1 worker");
    const q2 = speedOf(r, d, "queue, 2 workers");
    const own = (setup: string) =>
      r.rows.find((row) => row.decoder === d && row.setup.startsWith(setup))?.queueTokensPerSecond;
    const o1 = own("queue, 1 worker");
    const o2 = own("queue, 2 workers");
    const parts = [];
    if (one && two)
      parts.push(
        `--threads 2 ${(two / one).toFixed(2)}× one thread (target ≥ ${r.targets.threads2Speedup})`,
      );
    if (q1 && q2)
      parts.push(
        `2 queue workers ${(q2 / q1).toFixed(2)}× one (target ≥ ${r.targets.twoWorkersSpeedup})`,
      );
    if (one && q1)
      parts.push(
        `queue overhead end to end ${(100 * (1 - q1 / one)).toFixed(1)}%${o1 ? `, per worker (the queue's own rate) ${(100 * (1 - o1 / one)).toFixed(1)}%` : ""} (target ≤ ${100 * r.targets.queueOverhead}% per worker)`,
      );
    if (o1 && o2) parts.push(`2 workers at the queue's own rate ${(o2 / o1).toFixed(2)}× one`);
    lines.push("", `${d}: ${parts.join("; ")}.`);
  }
  return `${lines.join("\n")}\n`;
}

/** tokens/s against tagging workers (threads or queue workers), one line per setup and decoder. */
export async function writeScaleFigure(r: ScaleResult, out: string): Promise<string> {
  const path = join(dirname(out), "scale-throughput.svg");
  const series = [];
  for (const d of [...new Set(r.rows.map((row) => row.decoder))]) {
    for (const kind of ["one process", "queue"]) {
      const points = r.rows
        .filter((row) => row.decoder === d && row.setup.startsWith(kind))
        .map((row) => [row.workers, row.tokensPerSecond / 1000] as const);
      if (points.length > 0)
        series.push({ name: `${d}, ${kind === "queue" ? "queue workers" : "threads"}`, points });
    }
  }
  await writeReport(
    path,
    lineChartSvg({
      title: "Tagging throughput vs workers",
      xLabel: "threads or queue workers",
      yLabel: "thousand tokens/s",
      series,
    }),
  );
  return path;
}
