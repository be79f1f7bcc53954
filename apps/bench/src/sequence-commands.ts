import { L2S_DATASETS, L2S_DEFAULT_DATASETS, type L2sDatasetName } from "@lagrange/experiments";
import { type Command, InvalidArgumentError, Option } from "commander";
import { emit, integer, nameList, number, numbers, status, threadList } from "./arguments.js";
import { accuracySuite } from "./suites/accuracy.js";
import {
  ACCURACY_DATASETS,
  ACCURACY_ROWS,
  type AccuracyRowName,
  ELASTIC_NET_C1,
} from "./suites/accuracy-datasets.js";
import { accuracyMarkdown } from "./suites/accuracy-report.js";
import { brownClustersBench, brownClustersMarkdown } from "./suites/brown-clusters.js";
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

/** `pnpm bench crf-vs-crfsuite`. */
export function crfVsCrfsuiteCommand(bench: Command): void {
  bench
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
}

/** `pnpm bench crf-profile`. */
export function crfProfileCommand(bench: Command): void {
  bench
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
}

/** `pnpm bench crfsuite-interop`. */
export function crfsuiteInteropCommand(bench: Command): void {
  bench
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
}

/** `pnpm bench brown-clusters`. */
export function brownClustersCommand(bench: Command): void {
  bench
    .command("brown-clusters")
    .description(
      "Brown clustering of @lagrange/clusters vs Liang's wcluster (built from shared/anchors/brown-cluster with g++ in the same invocation) on the same tokens, one core each: time, co-membership F1 of the two clusterings (also with wcluster's order of equal-count words), the AMI each reaches; JSON + Markdown",
    )
    .option("--out <file.json>", "write the JSON result here (the Markdown beside it as .md)")
    .option("--quick", "the first 100 k tokens and C = 100 (seconds per program)")
    .option(
      "--text <file>",
      "a plain text file (one sentence a line) instead of the registry corpus",
    )
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
}

/** `pnpm bench l2s`. */
export function l2sCommand(bench: Command): void {
  bench
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
    .option(
      "--passes <p>",
      "an L2S pass count (repeat for several; default 0.25 0.5 1 2 4)",
      numbers,
    )
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
}

/** `pnpm bench accuracy`. */
export function accuracyCommand(bench: Command): void {
  bench
    .command("accuracy")
    .description(
      "issue 27's accuracy table: per dataset (CoNLL-2003, CoNLL-2002 es/nl, WNUT-16/17, EWT UPOS, CoNLL-2000) the rows baseline → + clusters → + lexicons → + two-stage / + general CRF / + document constraints, trained as `lagrange train` does on train less a held-out fold; held-out and dev scores with 95 % bootstrap intervals, deltas, paired bootstrap baseline → lexicons, training time, iterations, features; JSON + Markdown",
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
    .option(
      "--c1 <x>",
      `the elastic-net row's L1 coefficient, with the preset's c2 (default ${ELASTIC_NET_C1})`,
      number,
    )
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
        c1?: number;
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
          ...(opts.c1 === undefined ? {} : { c1: opts.c1 }),
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
}
