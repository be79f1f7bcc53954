import {
  BCRF_DATASETS,
  type BcrfDatasetName,
  TWO_PHASE_DATASETS,
  type TwoPhaseDatasetName,
} from "@lagrange/experiments";
import { STANDARD_DECODERS } from "@lagrange/recipes";
import { PENALTY_ALGORITHMS, type PenaltyAlgorithm } from "@lagrange/soft-dd";
import { type Command, InvalidArgumentError, Option } from "commander";
import { datasetList, emit, integer, nameList, number, status } from "./arguments.js";
import { ad3Bench } from "./suites/ad3.js";
import { ad3Markdown, writeAd3Figures } from "./suites/ad3-report.js";
import { AD3_SECTIONS, type Ad3Section } from "./suites/ad3-results.js";
import {
  AD3_TASKS,
  type Ad3TaskFlags,
  ad3TaskOptionsFromFlags,
} from "./suites/ad3-task-options.js";
import { bcrfMarkdown, bcrfSuite, writeBcrfFigures } from "./suites/bcrf.js";
import { softDdCitations, softDdCitationsMarkdown } from "./suites/soft-dd-citations.js";
import { twoPhaseIlp, twoPhaseIlpMarkdown } from "./suites/two-phase-ilp.js";
import {
  twoSlaveNer,
  twoSlaveNerMarkdown,
  writeTwoSlaveNerFigures,
} from "./suites/two-slave-ner.js";

/** `pnpm bench soft-dd-citations`. */
export function softDdCitationsCommand(bench: Command): void {
  bench
    .command("soft-dd-citations")
    .description(
      "anzaroot2014 on UMass citations: CRF baseline vs soft/hard constraints per family, early termination, label changes, decode time, significance; JSON + Markdown",
    )
    .option(
      "--out <file.json>",
      "write the JSON result here (the Markdown tables go beside it as .md)",
    )
    .option("--quick", "a smoke run on a few generated citations (seconds)")
    .option("--generated", "use generated citations even when UMass is reachable")
    .option("--crf-iterations <n>", "L-BFGS iterations of the base CRF (default 60)", integer)
    .option("--threads <n>", "threads for CRF training", integer, 2)
    .option("--seed <n>", "seed of the dev split into learn / test halves", integer, 1)
    .option("--epochs <n>", "penalty-learning epochs (default 5)", integer)
    .option("--learning-rate <x>", "penalty-learning rate (default 0.1)", number)
    .option("--threshold <x>", "importance threshold (default 2.75)", number)
    .addOption(
      new Option("--algorithm <name>", "penalty learner")
        .choices(PENALTY_ALGORITHMS)
        .default("averaged-perceptron"),
    )
    .addOption(
      new Option("--count-unit <unit>", "what singleton/pairwise constraints count")
        .choices(["segment", "label"])
        .default("segment"),
    )
    .option("--rules", "also learn the fersini2014 rule templates as a family")
    .action(
      async (opts: {
        out?: string;
        quick?: boolean;
        generated?: boolean;
        crfIterations?: number;
        threads: number;
        seed: number;
        epochs?: number;
        learningRate?: number;
        threshold?: number;
        algorithm: PenaltyAlgorithm;
        countUnit: "label" | "segment";
        rules?: boolean;
      }) => {
        const result = await softDdCitations({
          quick: opts.quick === true,
          generated: opts.generated === true,
          rules: opts.rules === true,
          threads: opts.threads,
          seed: opts.seed,
          penaltyAlgorithm: opts.algorithm,
          countUnit: opts.countUnit,
          ...(opts.crfIterations === undefined ? {} : { crfIterations: opts.crfIterations }),
          ...(opts.epochs === undefined ? {} : { epochs: opts.epochs }),
          ...(opts.learningRate === undefined ? {} : { learningRate: opts.learningRate }),
          ...(opts.threshold === undefined ? {} : { threshold: opts.threshold }),
          onStatus: status,
        });
        await emit(result, softDdCitationsMarkdown(result), opts.out);
      },
    );
}

/** `pnpm bench two-phase-ilp`. */
export function twoPhaseIlpCommand(bench: Command): void {
  bench
    .command("two-phase-ilp")
    .description(
      "fersini2014 on Cora, CoNLL-2003 and UMass: CRF-Viterbi vs the two-phase soft-constrained ILP per rule family and all together vs Soft-DD, τ chosen on held-out data, significance, ILP time; JSON + Markdown",
    )
    .option(
      "--out <file.json>",
      "write the JSON result here (the Markdown tables go beside it as .md)",
    )
    .option("--quick", "a smoke run on generated citations (seconds)")
    .option(
      "--datasets <list>",
      `comma-separated, of ${TWO_PHASE_DATASETS.join(", ")} (default all; cora runs the 350/150 and the paper's 300/200 split)`,
      datasetList,
    )
    .option("--threads <n>", "threads for CRF training", integer, 2)
    .option(
      "--crf-iterations <n>",
      "L-BFGS iterations of every CRF (default 60; quick 15)",
      integer,
    )
    .option("--time-limit <ms>", "per-sentence time limit of the ILP, ms (default 1000)", integer)
    .option("--seed <n>", "seed of UMass dev's halves and of the bootstrap", integer, 1)
    .addOption(
      new Option("--rule-keys <which>", "segment kinds rules may name")
        .choices(["top-level", "all"])
        .default("top-level"),
    )
    .action(
      async (opts: {
        out?: string;
        quick?: boolean;
        datasets?: TwoPhaseDatasetName[];
        threads: number;
        crfIterations?: number;
        timeLimit?: number;
        seed: number;
        ruleKeys: "top-level" | "all";
      }) => {
        const result = await twoPhaseIlp({
          quick: opts.quick === true,
          threads: opts.threads,
          seed: opts.seed,
          ruleKeys: opts.ruleKeys,
          ...(opts.datasets === undefined ? {} : { datasets: opts.datasets }),
          ...(opts.crfIterations === undefined ? {} : { crfIterations: opts.crfIterations }),
          ...(opts.timeLimit === undefined ? {} : { timeLimitMs: opts.timeLimit }),
          onStatus: status,
        });
        await emit(result, twoPhaseIlpMarkdown(result), opts.out);
      },
    );
}

/** `pnpm bench two-slave-ner`. */
export function twoSlaveNerCommand(bench: Command): void {
  bench
    .command("two-slave-ner")
    .description(
      "qian-liu2014 on Twitter NER (WNUT-16, WNUT-17, Ritter 2011): linear-chain CRF vs general CRF by 2-slave DD, naive DD and exact ILP (Table 2), DD curves vs decoding time (Figure 2, SVG); JSON + Markdown",
    )
    .option(
      "--out <file.json>",
      "write the JSON result here (Markdown and the SVG curves beside it)",
    )
    .option("--datasets <names...>", "registry names (default wnut16 wnut17 twitter-ritter2011)")
    .option(
      "--quick",
      "a smoke run: wnut16 only, 400 training tweets, 20 CRF iterations, 2 folds, 2 epochs",
    )
    .option("--crf-iterations <n>", "L-BFGS iterations of every chain CRF (default 100)", integer)
    .option(
      "--folds <n>",
      "jackknife folds for the perceptron's training scores (default 4)",
      integer,
    )
    .option("--epochs <n>", "perceptron epochs (default 10)", integer)
    .option("--learning-rate <x>", "perceptron step (default 0.01)", number)
    .option("--threads <n>", "threads for CRF training", integer, 2)
    .option("--exact-limit <ms>", "time limit of the exact ILP per group (default 10000)", integer)
    .action(
      async (opts: {
        out?: string;
        datasets?: string[];
        quick?: boolean;
        crfIterations?: number;
        folds?: number;
        epochs?: number;
        learningRate?: number;
        threads: number;
        exactLimit?: number;
      }) => {
        const quick = opts.quick === true;
        const result = await twoSlaveNer({
          threads: opts.threads,
          ...(quick
            ? {
                datasets: ["wnut16"],
                maxTrainSentences: 400,
                crfIterations: 20,
                folds: 2,
                epochs: 2,
              }
            : {}),
          ...(opts.datasets === undefined ? {} : { datasets: opts.datasets }),
          ...(opts.crfIterations === undefined ? {} : { crfIterations: opts.crfIterations }),
          ...(opts.folds === undefined ? {} : { folds: opts.folds }),
          ...(opts.epochs === undefined ? {} : { epochs: opts.epochs }),
          ...(opts.learningRate === undefined ? {} : { learningRate: opts.learningRate }),
          ...(opts.exactLimit === undefined ? {} : { exactTimeLimitMs: opts.exactLimit }),
          onStatus: status,
        });
        await emit(result, twoSlaveNerMarkdown(result), opts.out);
        if (opts.out !== undefined) {
          for (const file of await writeTwoSlaveNerFigures(result, opts.out))
            status(`wrote ${file}`);
        }
      },
    );
}

/** `pnpm bench bcrf`. */
export function bcrfCommand(bench: Command): void {
  bench
    .command("bcrf")
    .description(
      "corro on UD English EWT (UPOS) and CoNLL-2003 (NER, supervised and partial): CRF / mean-field / Bcrf training × Viterbi / mean-field / Bcrf decoding (Table 1), training- and decoding-time ratios (Tables 2–3), IBP convergence (SVG); JSON + Markdown",
    )
    .option(
      "--out <file.json>",
      "write the JSON result here (Markdown and the SVG curves beside it)",
    )
    .option("--datasets <names...>", `registry names (default ${BCRF_DATASETS.join(" ")})`)
    .option("--quick", "a smoke run: 1,000 training and 300 evaluation sentences, 20 iterations")
    .option("--train-iterations <n>", "L-BFGS iterations of every model (default 100)", integer)
    .option("--max-train <n>", "train on the first n sentences only", integer)
    .option("--max-dev <n>", "evaluate on the first n sentences only", integer)
    .option("--no-partial", "skip the partially supervised CoNLL-2003 runs")
    .option("--threads <n>", "threads for training and the threaded-Bcrf crossover", integer, 2)
    .action(
      async (opts: {
        out?: string;
        datasets?: string[];
        quick?: boolean;
        trainIterations?: number;
        maxTrain?: number;
        maxDev?: number;
        partial: boolean;
        threads: number;
      }) => {
        for (const name of opts.datasets ?? []) {
          if (!(BCRF_DATASETS as readonly string[]).includes(name)) {
            throw new InvalidArgumentError(
              `unknown dataset "${name}"; expected ${BCRF_DATASETS.join(", ")}`,
            );
          }
        }
        const quick = opts.quick === true;
        const result = await bcrfSuite({
          threads: opts.threads,
          partial: opts.partial,
          ...(quick
            ? {
                maxTrainSentences: 1000,
                maxDevSentences: 300,
                trainIterations: 20,
                crossoverLengths: [100, 10_000],
              }
            : {}),
          ...(opts.datasets === undefined ? {} : { datasets: opts.datasets as BcrfDatasetName[] }),
          ...(opts.trainIterations === undefined ? {} : { trainIterations: opts.trainIterations }),
          ...(opts.maxTrain === undefined ? {} : { maxTrainSentences: opts.maxTrain }),
          ...(opts.maxDev === undefined ? {} : { maxDevSentences: opts.maxDev }),
          onStatus: status,
        });
        await emit(result, bcrfMarkdown(result), opts.out);
        if (opts.out !== undefined) {
          for (const file of await writeBcrfFigures(result, opts.out)) status(`wrote ${file}`);
        }
      },
    );
}

/** `pnpm bench ad3`. */
export function ad3Command(bench: Command): void {
  bench
    .command("ad3")
    .description(
      "issue 29's AD3: on AD3's 27 benchmark factor graphs (shared/anchors/ad3/data, .fg and UAI) Lagrange's AD3 against the C++ ad3_multi (built from shared/anchors/ad3 with g++ in the same invocation) running AD3 and its PSDD — time, iterations, final dual, primal, gap, LP-MAP agreement, dual and primal against time (SVG); then the project's tasks (UMass Soft-DD, WNUT general-CRF groups, CoNLL-2003 documents): AD3 step vs subgradient, certified and dual against time, F1, exact decoding; JSON + Markdown",
    )
    .option(
      "--out <file.json>",
      "write the JSON result here (Markdown and the SVG curves beside it)",
    )
    .option(
      "--sections <list>",
      `comma-separated, of ${AD3_SECTIONS.join(", ")} (default all)`,
      nameList("section", AD3_SECTIONS),
    )
    .option("--data <dir>", "folder of .fg / .uai graphs (default shared/anchors/ad3/data)")
    .option("--graphs <list>", "comma-separated file names of that folder (default all)", (v) =>
      v
        .split(",")
        .map((x) => x.trim())
        .filter((x) => x !== ""),
    )
    .option(
      "--max-iterations <n>",
      "iteration cap of every system (default 1000, ad3_multi's)",
      integer,
    )
    .option("--eta <x>", "η for every system (default: each its own; ad3_multi 0.1)", number)
    .option(
      "--residual-threshold <x>",
      "both AD3s stop when both residuals are below it (default 1e-6, ad3_multi's)",
      number,
    )
    .option("--exact", "exact MAP by branch and bound in both AD3s (PSDD not run)")
    .option("--no-peer", "do not build or run the C++ ad3_multi")
    .option(
      "--min-sample-ms <n>",
      "each timing repeats solves until they add up to n ms; the median is reported (default 200)",
      integer,
    )
    .option(
      "--rounds <n>",
      "graphs: each system timed n times per graph, in turn; the median is reported (default 3)",
      integer,
    )
    .option(
      "--tasks <list>",
      `tasks section: comma-separated, of ${AD3_TASKS.join(", ")} (default all)`,
      nameList("task", AD3_TASKS),
    )
    .option(
      "--limit <n>",
      "tasks: the first n test citations / dev sentences (a smoke run)",
      integer,
    )
    .option("--max-train <n>", "tasks: train general CRFs on the first n sentences", integer)
    .option(
      "--crf-iterations <n>",
      "tasks: L-BFGS iterations of the NER chain CRFs (default 100)",
      integer,
    )
    .option("--folds <n>", "tasks: jackknife folds (default 4 tweets, 2 CoNLL-2003)", integer)
    .option("--epochs <n>", "tasks: perceptron epochs of the general CRFs (default 10)", integer)
    .addOption(
      new Option("--train-decoder <name>", "tasks: decoder the perceptron trains through")
        .choices(STANDARD_DECODERS.filter((d) => d.accepts.patterns === true).map((d) => d.name))
        .default("two-slave"),
    )
    .option("--subgradient-iterations <n>", "tasks: subgradient cap (default 200)", integer)
    .option("--ad3-iterations <n>", "tasks: AD3 cap (default 1000)", integer)
    .option("--exact-limit <ms>", "tasks: exact ILP time limit per group (default 10000)", integer)
    .option("--skip-exact", "tasks: no exact decoding (ILP, AD3 + branch and bound) of the groups")
    .option(
      "--timing-runs <n>",
      "tasks: timed runs of the citation timing harness (default 5)",
      integer,
    )
    .option("--threads <n>", "tasks: threads for CRF training", integer)
    .action(
      async (
        opts: Ad3TaskFlags & {
          out?: string;
          sections?: string[];
          data?: string;
          graphs?: string[];
          maxIterations?: number;
          eta?: number;
          residualThreshold?: number;
          exact?: boolean;
          peer: boolean;
          minSampleMs?: number;
          rounds?: number;
        },
      ) => {
        const result = await ad3Bench({
          peer: opts.peer,
          exact: opts.exact === true,
          ...(opts.sections === undefined ? {} : { sections: opts.sections as Ad3Section[] }),
          ...(opts.data === undefined ? {} : { dataDir: opts.data }),
          ...(opts.graphs === undefined ? {} : { graphs: opts.graphs }),
          ...(opts.maxIterations === undefined ? {} : { maxIterations: opts.maxIterations }),
          ...(opts.eta === undefined ? {} : { eta: opts.eta }),
          ...(opts.residualThreshold === undefined
            ? {}
            : { residualThreshold: opts.residualThreshold }),
          ...(opts.minSampleMs === undefined ? {} : { minSampleMs: opts.minSampleMs }),
          ...(opts.rounds === undefined ? {} : { rounds: opts.rounds }),
          tasks: ad3TaskOptionsFromFlags(opts),
          onStatus: status,
        });
        await emit(result, ad3Markdown(result), opts.out);
        if (opts.out !== undefined) {
          for (const file of await writeAd3Figures(result, opts.out)) status(`wrote ${file}`);
        }
      },
    );
}
