import type { Command } from "commander";
import { emit, instanceList, integer, status } from "./arguments.js";
import { cliStartup, cliStartupMarkdown } from "./suites/cli-startup.js";
import { maxflowBench } from "./suites/maxflow.js";
import { maxflowMarkdown } from "./suites/maxflow-report.js";
import { scaleBench, scaleMarkdown, writeScaleFigure } from "./suites/scale.js";

/** `pnpm bench maxflow`. */
export function maxflowCommand(bench: Command): void {
  bench
    .command("maxflow")
    .description(
      "Boykov–Kolmogorov max-flow of @lagrange/mincut vs Kolmogorov's C++ MAXFLOW (libmaxflow-dev, built and run in the same invocation when g++ is there) on shared/fixtures/maxflow: build, maxflow(), total, update rounds with and without search-tree reuse; every solve checked; JSON + Markdown",
    )
    .option(
      "--out <file.json>",
      "write the JSON result here (the Markdown tables go beside it as .md)",
    )
    .option("--quick", "a smoke run on a few small instances (seconds)")
    .option("--instances <list>", "comma-separated instance names (default all)", instanceList)
    .option(
      "--samples <n>",
      "samples per measurement, medians reported (default 5; quick 3)",
      integer,
    )
    .option("--min-ms <n>", "each sample lasts at least this long (default 50; quick 10)", integer)
    .option("--fixtures <dir>", "the fixture folder (default ../shared/fixtures/maxflow)")
    .option("--no-native", "do not build the C++ driver: compare with the recorded timings.json")
    .action(
      async (opts: {
        out?: string;
        quick?: boolean;
        instances?: string[];
        samples?: number;
        minMs?: number;
        fixtures?: string;
        native: boolean;
      }) => {
        const result = await maxflowBench({
          quick: opts.quick === true,
          native: opts.native ? "auto" : "off",
          ...(opts.instances === undefined ? {} : { instances: opts.instances }),
          ...(opts.samples === undefined ? {} : { samples: opts.samples }),
          ...(opts.minMs === undefined ? {} : { minSampleMs: opts.minMs }),
          ...(opts.fixtures === undefined ? {} : { fixtureDir: opts.fixtures }),
          onStatus: status,
        });
        await emit(result, maxflowMarkdown(result), opts.out);
      },
    );
}

/** `pnpm bench cli-startup`. */
export function cliStartupCommand(bench: Command): void {
  bench
    .command("cli-startup")
    .description(
      "lagrange --help and --version from the built binary (apps/cli/dist) against node -e 0 and the source run: medians of N spawns; JSON + Markdown",
    )
    .option(
      "--out <file.json>",
      "write the JSON result here (the Markdown table goes beside it as .md)",
    )
    .option("--runs <n>", "spawns per command; times are medians", integer, 21)
    .option("--build", "rebuild apps/cli/dist first (default: only when it is missing)")
    .action(async (opts: { out?: string; runs: number; build?: boolean }) => {
      const result = await cliStartup({
        runs: opts.runs,
        build: opts.build === true,
        onStatus: status,
      });
      await emit(result, cliStartupMarkdown(result), opts.out);
    });
}

/** `pnpm bench scale`. */
export function scaleCommand(bench: Command): void {
  bench
    .command("scale")
    .description(
      "tagging a large generated corpus (default 1,000,000 citations) through the built binary: one streaming process, --threads 2, and 1 and 2 BullMQ queue workers on a local redis-server, with Viterbi and Soft-DD; tokens/s, peak RSS, 1× vs 20× streaming memory; JSON + Markdown + SVG",
    )
    .option("--out <file.json>", "write the JSON result here (Markdown and the SVG beside it)")
    .option("--citations <n>", "generated citations to tag", integer, 1_000_000)
    .option("--decoders <list>", "comma-separated decoders", "viterbi,soft-dd")
    .option("--no-queue", "skip the queue runs (no redis-server)")
    .action(async (opts: { out?: string; citations: number; decoders: string; queue: boolean }) => {
      const result = await scaleBench({
        citations: opts.citations,
        decoders: opts.decoders.split(",").map((d) => d.trim()),
        queue: opts.queue,
        onStatus: status,
      });
      await emit(result, scaleMarkdown(result), opts.out);
      if (opts.out !== undefined) status(`wrote ${await writeScaleFigure(result, opts.out)}`);
    });
}
