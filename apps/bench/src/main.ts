import {
  BCRF_DATASETS,
  type BcrfDatasetName,
  L2S_DATASETS,
  L2S_DEFAULT_DATASETS,
  type L2sDatasetName,
  TWO_PHASE_DATASETS,
  type TwoPhaseDatasetName,
} from "@lagrange/experiments";
import { STANDARD_DECODERS } from "@lagrange/recipes";
import { PENALTY_ALGORITHMS, type PenaltyAlgorithm } from "@lagrange/soft-dd";
import { Command, InvalidArgumentError, Option } from "commander";
import { writeReport } from "./report.js";
import {
  ACCURACY_DATASETS,
  ACCURACY_ROWS,
  type AccuracyRowName,
  accuracyMarkdown,
  accuracySuite,
} from "./suites/accuracy.js";
import {
  AD3_SECTIONS,
  type Ad3Section,
  ad3Bench,
  ad3Markdown,
  writeAd3Figures,
} from "./suites/ad3.js";
import { AD3_TASKS, type Ad3TaskFlags, ad3TaskOptionsFromFlags } from "./suites/ad3-tasks.js";
import { bcrfMarkdown, bcrfSuite, writeBcrfFigures } from "./suites/bcrf.js";
import { brownClustersBench, brownClustersMarkdown } from "./suites/brown-clusters.js";
import { cliStartup, cliStartupMarkdown } from "./suites/cli-startup.js";
import {
  CRF_PROFILE_DATASETS,
  type CrfProfileDataset,
  crfProfile,
  crfProfileMarkdown,
} from "./suites/crf-profile.js";
import {
  CRF_VS_CRFSUITE_CASES,
  type CrfVsCrfsuiteCase,
  crfVsCrfsuite,
  crfVsCrfsuiteMarkdown,
  UMASS_DEFAULT_ITERATIONS,
  UMASS_MASKS,
  type UmassMask,
} from "./suites/crf-vs-crfsuite.js";
import { crfsuiteInterop, crfsuiteInteropMarkdown } from "./suites/crfsuite-interop.js";
import { l2sMarkdown, l2sSuite, writeL2sFigures } from "./suites/l2s.js";
import { maxflowBench, maxflowMarkdown } from "./suites/maxflow.js";
import { scaleBench, scaleMarkdown, writeScaleFigure } from "./suites/scale.js";
import { softDdCitations, softDdCitationsMarkdown } from "./suites/soft-dd-citations.js";
import { twoPhaseIlp, twoPhaseIlpMarkdown } from "./suites/two-phase-ilp.js";
import {
  twoSlaveNer,
  twoSlaveNerMarkdown,
  writeTwoSlaveNerFigures,
} from "./suites/two-slave-ner.js";

const integer = (value: string) => {
  const x = Number(value);
  if (!Number.isInteger(x) || x < 1)
    throw new InvalidArgumentError(`expected an integer ≥ 1, got "${value}"`);
  return x;
};

/** A comma-separated list of distinct thread counts, e.g. `1,2`. */
const threadList = (value: string) => {
  const counts = value.split(",").map((part) => part.trim());
  const parsed = counts.map((part) => {
    const x = Number(part);
    if (part === "" || !Number.isInteger(x) || x < 1)
      throw new InvalidArgumentError(
        `expected comma-separated integers ≥ 1 (e.g. 1,2), got "${value}"`,
      );
    return x;
  });
  if (new Set(parsed).size !== parsed.length)
    throw new InvalidArgumentError(`a thread count appears twice in "${value}"`);
  return parsed;
};

const status = (message: string) => process.stderr.write(`[bench] ${message}\n`);

/** Markdown on stdout; with --out, the JSON there and the Markdown beside it (.md). */
async function emit(result: unknown, markdown: string, out: string | undefined): Promise<void> {
  process.stdout.write(markdown);
  if (out === undefined) return;
  await writeReport(out, `${JSON.stringify(result, null, 2)}\n`);
  await writeReport(`${out.replace(/\.json$/, "")}.md`, markdown);
  status(`wrote ${out}`);
}

const program = new Command("bench")
  .description("Benchmarks against peers, measured in the same run")
  .showHelpAfterError();

program
  .command("crf-vs-crfsuite")
  .description(
    "Train and tag CoNLL-2000 chunking and UMass citations with Lagrange and with CRFsuite (npm binding); JSON + Markdown",
  )
  .option(
    "--out <file.json>",
    "write the JSON result here (the Markdown table goes beside it as .md)",
  )
  .option("--repeats <n>", "runs per system; times are medians", integer, 1)
  .addOption(
    new Option(
      "--threads <list>",
      "Lagrange's thread counts, comma-separated: one Lagrange run per count, one CRFsuite run, per repeat",
    )
      .argParser(threadList)
      .default([1, 2], "1,2"),
  )
  .addOption(
    new Option("--case <which>", "the dataset(s) compared")
      .choices([...CRF_VS_CRFSUITE_CASES, "all"])
      .default("all"),
  )
  .option("--max-train <n>", "train on the first n sentences only (a quick check)", integer)
  .option(
    "--max-iterations <n>",
    "cap L-BFGS iterations for both systems (CoNLL default: CRFsuite's stopping rule; also UMass's cap unless --umass-iterations)",
    integer,
  )
  .option(
    "--umass-iterations <n>",
    `UMass: L-BFGS iterations cap for both systems (default ${UMASS_DEFAULT_ITERATIONS}, the citation recipe's)`,
    integer,
  )
  .addOption(
    new Option(
      "--umass-mask <which>",
      "UMass: Lagrange decodes under the hierarchical-BIO mask (on, production), without it (off), or both (one training)",
    )
      .choices(UMASS_MASKS)
      .default("both"),
  )
  .action(
    async (opts: {
      out?: string;
      repeats: number;
      threads: number[];
      case: CrfVsCrfsuiteCase | "all";
      maxTrain?: number;
      maxIterations?: number;
      umassIterations?: number;
      umassMask: UmassMask;
    }) => {
      const result = await crfVsCrfsuite({
        repeats: opts.repeats,
        threads: opts.threads,
        cases: opts.case === "all" ? CRF_VS_CRFSUITE_CASES : [opts.case],
        ...(opts.maxTrain === undefined ? {} : { maxTrainSentences: opts.maxTrain }),
        ...(opts.maxIterations === undefined ? {} : { maxIterations: opts.maxIterations }),
        ...(opts.umassIterations === undefined ? {} : { umassIterations: opts.umassIterations }),
        umassMask: opts.umassMask,
        onStatus: status,
      });
      await emit(result, crfVsCrfsuiteMarkdown(result), opts.out);
    },
  );

program
  .command("crf-profile")
  .description(
    "One CRF training pass on CoNLL-2000 timed phase by phase, each phase's rate against the same code's rate on data in cache; JSON + Markdown",
  )
  .option(
    "--out <file.json>",
    "write the JSON result here (the Markdown table goes beside it as .md)",
  )
  .addOption(
    new Option("--dataset <name>", "corpus to profile")
      .choices(Object.keys(CRF_PROFILE_DATASETS))
      .default("conll2000"),
  )
  .option("--passes <n>", "passes per measurement (medians)", integer, 5)
  .option("--threads <n>", "also time the worker pool with n threads (1: not)", integer, 2)
  .option("--max-train <n>", "profile the first n sentences only (a quick check)", integer)
  .action(
    async (opts: {
      out?: string;
      dataset: CrfProfileDataset;
      passes: number;
      threads: number;
      maxTrain?: number;
    }) => {
      const result = await crfProfile({
        dataset: opts.dataset,
        passes: opts.passes,
        threads: opts.threads,
        ...(opts.maxTrain === undefined ? {} : { maxTrainSentences: opts.maxTrain }),
        onStatus: status,
      });
      await emit(result, crfProfileMarkdown(result), opts.out);
    },
  );

program
  .command("crfsuite-interop")
  .description(
    "CRFsuite model files on CoNLL-2000: a CRFsuite-trained model imported and a Lagrange-trained one exported, tags compared both ways; JSON + Markdown",
  )
  .option(
    "--out <file.json>",
    "write the JSON result here (the Markdown table goes beside it as .md)",
  )
  .option("--threads <n>", "Lagrange's threads for training", integer, 2)
  .option("--max-train <n>", "train on the first n sentences only (a quick check)", integer)
  .option("--max-iterations <n>", "L-BFGS iterations for both trainers (default 50)", integer)
  .option(
    "--model <file>",
    "export this Lagrange CoNLL-2000 model (chunking preset) instead of training one",
  )
  .action(
    async (opts: {
      out?: string;
      threads: number;
      maxTrain?: number;
      maxIterations?: number;
      model?: string;
    }) => {
      const result = await crfsuiteInterop({
        threads: opts.threads,
        ...(opts.maxTrain === undefined ? {} : { maxTrainSentences: opts.maxTrain }),
        ...(opts.maxIterations === undefined ? {} : { maxIterations: opts.maxIterations }),
        ...(opts.model === undefined ? {} : { model: opts.model }),
        onStatus: status,
      });
      await emit(result, crfsuiteInteropMarkdown(result), opts.out);
    },
  );

const number = (value: string) => {
  const x = Number(value);
  if (!Number.isFinite(x)) throw new InvalidArgumentError(`expected a number, got "${value}"`);
  return x;
};

program
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

const datasetList = (value: string): TwoPhaseDatasetName[] => {
  const names = value
    .split(",")
    .map((x) => x.trim())
    .filter((x) => x !== "");
  for (const name of names) {
    if (!(TWO_PHASE_DATASETS as readonly string[]).includes(name)) {
      throw new InvalidArgumentError(
        `unknown dataset "${name}"; expected a comma-separated list of ${TWO_PHASE_DATASETS.join(", ")}`,
      );
    }
  }
  if (names.length === 0) throw new InvalidArgumentError("name at least one dataset");
  return [...new Set(names)] as TwoPhaseDatasetName[];
};

program
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
  .option("--crf-iterations <n>", "L-BFGS iterations of every CRF (default 60; quick 15)", integer)
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

const instanceList = (value: string): string[] => {
  const names = value
    .split(",")
    .map((x) => x.trim())
    .filter((x) => x !== "");
  if (names.length === 0) throw new InvalidArgumentError("name at least one instance");
  return [...new Set(names)];
};

program
  .command("brown-clusters")
  .description(
    "Brown clustering of @lagrange/clusters vs Liang's wcluster (built from shared/anchors/brown-cluster with g++ in the same invocation) on the same tokens, one core each: time, co-membership F1 of the two clusterings (also with wcluster's order of equal-count words), the AMI each reaches; JSON + Markdown",
  )
  .option("--out <file.json>", "write the JSON result here (the Markdown beside it as .md)")
  .option("--quick", "the first 100 k tokens and C = 100 (seconds per program)")
  .option("--text <file>", "a plain text file (one sentence a line) instead of the registry corpus")
  .option("--corpus <name>", "a registry raw-text corpus (default brown)")
  .option("--clusters <n>", "C (default 1000; quick 100)", integer)
  .option("--min-count <k>", "leave out words seen fewer than k times (default 1)", integer)
  .option("--max-tokens <n>", "keep the first whole sentences up to n tokens", integer)
  .option(
    "--no-same-order",
    "skip the second Lagrange run in wcluster's order of equal-count words",
  )
  .option(
    "--tie-sensitivity",
    "a third Lagrange run, equal-count words in reverse order: agreement of two tie orders (default with --quick)",
  )
  .action(
    async (opts: {
      out?: string;
      quick?: boolean;
      text?: string;
      corpus?: string;
      clusters?: number;
      minCount?: number;
      maxTokens?: number;
      sameOrder: boolean;
      tieSensitivity?: boolean;
    }) => {
      const result = await brownClustersBench({
        quick: opts.quick === true,
        sameOrder: opts.sameOrder,
        ...(opts.tieSensitivity === undefined ? {} : { tieSensitivity: opts.tieSensitivity }),
        ...(opts.text === undefined ? {} : { text: opts.text }),
        ...(opts.corpus === undefined ? {} : { corpus: opts.corpus }),
        ...(opts.clusters === undefined ? {} : { clusters: opts.clusters }),
        ...(opts.minCount === undefined ? {} : { minCount: opts.minCount }),
        ...(opts.maxTokens === undefined ? {} : { maxTokens: opts.maxTokens }),
        onStatus: status,
      });
      await emit(result, brownClustersMarkdown(result), opts.out);
    },
  );

program
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

program
  .command("two-slave-ner")
  .description(
    "qian-liu2014 on Twitter NER (WNUT-16, WNUT-17, Ritter 2011): linear-chain CRF vs general CRF by 2-slave DD, naive DD and exact ILP (Table 2), DD curves vs decoding time (Figure 2, SVG); JSON + Markdown",
  )
  .option("--out <file.json>", "write the JSON result here (Markdown and the SVG curves beside it)")
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
          ? { datasets: ["wnut16"], maxTrainSentences: 400, crfIterations: 20, folds: 2, epochs: 2 }
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
        for (const file of await writeTwoSlaveNerFigures(result, opts.out)) status(`wrote ${file}`);
      }
    },
  );

program
  .command("bcrf")
  .description(
    "corro on UD English EWT (UPOS) and CoNLL-2003 (NER, supervised and partial): CRF / mean-field / Bcrf training × Viterbi / mean-field / Bcrf decoding (Table 1), training- and decoding-time ratios (Tables 2–3), IBP convergence (SVG); JSON + Markdown",
  )
  .option("--out <file.json>", "write the JSON result here (Markdown and the SVG curves beside it)")
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

const numbers = (value: string, previous: number[] | undefined): number[] => {
  const x = Number(value);
  if (!(x > 0)) throw new InvalidArgumentError(`${value}: expected a positive number`);
  return [...(previous ?? []), x];
};

program
  .command("l2s")
  .description(
    "chang2016 (learning to search) on UD English EWT (UPOS) and CoNLL-2003 (NER, testa): accuracy vs training time for L2S at several pass counts and the chain CRF (L-BFGS caps, averaged perceptron, SGD) on the same features in the same run (Figure 6, SVG), invalid BIO outputs with and without the constraint bridge; dependency parsing on EWT train → dev: UAS/LAS with gold and predicted UPOS, dynamic vs static oracle, sentences/s; JSON + Markdown",
  )
  .option(
    "--out <file.json>",
    "write the JSON result here (Markdown and the SVG figures beside it)",
  )
  .option(
    "--datasets <names...>",
    `tagging datasets, of ${L2S_DATASETS.join(" ")} (default ${L2S_DEFAULT_DATASETS.join(" ")})`,
  )
  .option("--quick", "a smoke run: 1,000 training and 300 evaluation sentences, few points")
  .option("--passes <p>", "an L2S pass count (repeat for several; default 0.25 0.5 1 2 4)", numbers)
  .option("--parser-passes <p>", "parser pass counts (repeat; default 1 3 5)", numbers)
  .option("--lbfgs <n>", "a CRF L-BFGS iteration cap (repeat; default 10 25 50 100)", numbers)
  .option("--ap <n>", "averaged-perceptron epochs (repeat; default 1 3 10)", numbers)
  .option("--sgd <n>", "SGD epochs (repeat; default 1 3 10)", numbers)
  .option("--max-train <n>", "train on the first n sentences only", integer)
  .option("--max-dev <n>", "evaluate on the first n sentences only", integer)
  .option("--no-parsing", "skip the dependency-parsing table")
  .action(
    async (opts: {
      out?: string;
      datasets?: string[];
      quick?: boolean;
      passes?: number[];
      parserPasses?: number[];
      lbfgs?: number[];
      ap?: number[];
      sgd?: number[];
      maxTrain?: number;
      maxDev?: number;
      parsing: boolean;
    }) => {
      for (const name of opts.datasets ?? []) {
        if (!(L2S_DATASETS as readonly string[]).includes(name)) {
          throw new InvalidArgumentError(
            `unknown dataset "${name}"; expected ${L2S_DATASETS.join(", ")}`,
          );
        }
      }
      const quick = opts.quick === true;
      const result = await l2sSuite({
        parsing: opts.parsing,
        ...(quick
          ? {
              maxTrainSentences: 1000,
              maxDevSentences: 300,
              l2sPasses: [0.5, 1, 2],
              lbfgsIterations: [10, 25],
              perceptronEpochs: [1, 3],
              sgdEpochs: [1, 3],
              parserPasses: [1],
            }
          : {}),
        ...(opts.datasets === undefined ? {} : { datasets: opts.datasets as L2sDatasetName[] }),
        ...(opts.passes === undefined ? {} : { l2sPasses: opts.passes }),
        ...(opts.parserPasses === undefined ? {} : { parserPasses: opts.parserPasses }),
        ...(opts.lbfgs === undefined ? {} : { lbfgsIterations: opts.lbfgs }),
        ...(opts.ap === undefined ? {} : { perceptronEpochs: opts.ap }),
        ...(opts.sgd === undefined ? {} : { sgdEpochs: opts.sgd }),
        ...(opts.maxTrain === undefined ? {} : { maxTrainSentences: opts.maxTrain }),
        ...(opts.maxDev === undefined ? {} : { maxDevSentences: opts.maxDev }),
        onStatus: status,
      });
      await emit(result, l2sMarkdown(result), opts.out);
      if (opts.out !== undefined) {
        for (const file of await writeL2sFigures(result, opts.out)) status(`wrote ${file}`);
      }
    },
  );

program
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

program
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

/** A comma-separated list of names, each one of `known`. */
const nameList =
  (what: string, known: readonly string[]) =>
  (value: string): string[] => {
    const names = value
      .split(",")
      .map((x) => x.trim())
      .filter((x) => x !== "");
    if (names.length === 0) throw new InvalidArgumentError(`name at least one ${what}`);
    for (const name of names) {
      if (!known.includes(name)) {
        throw new InvalidArgumentError(
          `unknown ${what} "${name}"; expected a comma-separated list of ${known.join(", ")}`,
        );
      }
    }
    return [...new Set(names)];
  };

program
  .command("accuracy")
  .description(
    "issue 27's accuracy table: per dataset (CoNLL-2003, CoNLL-2002 es/nl, WNUT-16/17, EWT UPOS, CoNLL-2000) the rows baseline → + clusters → + lexicons → + two-stage / + general CRF, trained as `lagrange train` does on train less a held-out fold; held-out and dev scores with 95 % bootstrap intervals, deltas, paired bootstrap baseline → lexicons, training time, iterations, features; JSON + Markdown",
  )
  .option("--out <dir>", "write accuracy.json and accuracy.md into this folder")
  .option(
    "--datasets <list>",
    `comma-separated, of ${ACCURACY_DATASETS.map((d) => d.name).join(", ")} (default all)`,
    nameList(
      "dataset",
      ACCURACY_DATASETS.map((d) => d.name),
    ),
  )
  .option(
    "--rows <list>",
    `comma-separated, of ${ACCURACY_ROWS.join(", ")} (default all)`,
    nameList("row", ACCURACY_ROWS),
  )
  .option(
    "--max-iterations <n>",
    "L-BFGS iterations cap (default: the task preset's; quick 30)",
    integer,
  )
  .option("--threads <n>", "training threads", integer, 2)
  .option("--quick", "a smoke run: 2,000 training sentences, 30 iterations")
  .option(
    "--max-train <n>",
    "keep the first n training sentences (before the held-out cut)",
    integer,
  )
  .option(
    "--resources <dir>",
    "a folder with clusters-<language>.paths and <lexicon>.txt files to use instead of the cache and the registry",
  )
  .option("--samples <n>", "bootstrap resamples", integer, 1000)
  .option("--seed <n>", "bootstrap seed", integer, 1)
  .action(
    async (opts: {
      out?: string;
      datasets?: string[];
      rows?: string[];
      maxIterations?: number;
      threads: number;
      quick?: boolean;
      maxTrain?: number;
      resources?: string;
      samples: number;
      seed: number;
    }) => {
      const result = await accuracySuite({
        quick: opts.quick === true,
        threads: opts.threads,
        bootstrapSamples: opts.samples,
        seed: opts.seed,
        ...(opts.datasets === undefined ? {} : { datasets: opts.datasets }),
        ...(opts.rows === undefined ? {} : { rows: opts.rows as AccuracyRowName[] }),
        ...(opts.maxIterations === undefined ? {} : { maxIterations: opts.maxIterations }),
        ...(opts.maxTrain === undefined ? {} : { maxTrainSentences: opts.maxTrain }),
        ...(opts.resources === undefined ? {} : { resourcesDir: opts.resources }),
        onStatus: status,
      });
      await emit(
        result,
        accuracyMarkdown(result),
        opts.out === undefined ? undefined : `${opts.out.replace(/\/$/, "")}/accuracy.json`,
      );
    },
  );

program
  .command("ad3")
  .description(
    "issue 29's AD3: on AD3's 27 benchmark factor graphs (shared/anchors/ad3/data, .fg and UAI) Lagrange's AD3 against the C++ ad3_multi (built from shared/anchors/ad3 with g++ in the same invocation) running AD3 and its PSDD — time, iterations, final dual, primal, gap, LP-MAP agreement, dual and primal against time (SVG); then the project's tasks (UMass Soft-DD, WNUT general-CRF groups, CoNLL-2003 documents): AD3 step vs subgradient, certified and dual against time, F1, exact decoding; JSON + Markdown",
  )
  .option("--out <file.json>", "write the JSON result here (Markdown and the SVG curves beside it)")
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
    "--tasks <list>",
    `tasks section: comma-separated, of ${AD3_TASKS.join(", ")} (default all)`,
    nameList("task", AD3_TASKS),
  )
  .option("--limit <n>", "tasks: the first n test citations / dev sentences (a smoke run)", integer)
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
        tasks: ad3TaskOptionsFromFlags(opts),
        onStatus: status,
      });
      await emit(result, ad3Markdown(result), opts.out);
      if (opts.out !== undefined) {
        for (const file of await writeAd3Figures(result, opts.out)) status(`wrote ${file}`);
      }
    },
  );

await program.parseAsync(process.argv.slice(2), { from: "user" });
