import { type AttributeSequence, getPreset, trainCrf } from "@lagrange/chain-crf";
import type { Corpus } from "@lagrange/datasets";
import {
  type ConlluSentence,
  decodingMask,
  evaluateChunks,
  evaluateDependencies,
  evaluateTokens,
  type LabelScheme,
  type SchemeName,
  schemeViolations,
} from "@lagrange/datasets";
import { BASE_LEARNERS } from "@lagrange/l2s";
import {
  conlluSentences,
  l2sParserOf,
  l2sTaggerOf,
  parseWithL2s,
  sentenceAttributes,
  standardDecoders,
  tagWithL2s,
  trainL2sParser,
  trainL2sTagger,
} from "@lagrange/recipes";
import { openBenchSplits } from "../bench-splits.js";

/**
 * The sequence-labelling datasets of the suite: chang2016's POS and NER on the data we have, and
 * (on request) CoNLL-2003 relabelled from IOB1 to BIOES, where an unconstrained tagger can break the
 * scheme (IOB1 forbids little) — what the constraint bridge is for.
 */
export const L2S_DATASETS = ["ud-en-ewt", "conll2003", "conll2003-bioes"] as const;
export type L2sDatasetName = (typeof L2S_DATASETS)[number];
/** What `l2sBenchmark` runs without a `datasets` option. */
export const L2S_DEFAULT_DATASETS: readonly L2sDatasetName[] = ["ud-en-ewt", "conll2003"];

const SETTINGS: Record<
  L2sDatasetName,
  { preset: string; metric: "accuracy" | "f1"; registry: string; relabel?: SchemeName }
> = {
  "ud-en-ewt": { preset: "pos", metric: "accuracy", registry: "ud-en-ewt" },
  conll2003: { preset: "ner", metric: "f1", registry: "conll2003" },
  "conll2003-bioes": { preset: "ner", metric: "f1", registry: "conll2003", relabel: "BIOES" },
};

export interface L2sBenchmarkOptions {
  readonly datasets?: readonly L2sDatasetName[];
  /** L2S training passes, one point each (a rate < 1: one subsampled pass). Default 0.25 0.5 1 2 4. */
  readonly l2sPasses?: readonly number[];
  /** L-BFGS iteration caps, one CRF point each. Default 10 25 50 100. */
  readonly lbfgsIterations?: readonly number[];
  /** Averaged-perceptron epochs. Default 1 3 10. */
  readonly perceptronEpochs?: readonly number[];
  /** SGD epochs. Default 1 3 10. */
  readonly sgdEpochs?: readonly number[];
  /** The dependency-parsing table (UD English EWT train → dev). Default true. */
  readonly parsing?: boolean;
  /** Parser training passes (perceptron, both oracles). Default 1 3 5. */
  readonly parserPasses?: readonly number[];
  /** Passes of the one csoaa parser row (dynamic oracle), for comparison. Default 1; 0: none. */
  readonly csoaaParserPasses?: number;
  readonly maxTrainSentences?: number;
  readonly maxDevSentences?: number;
  readonly seed?: number;
  readonly onStatus?: (line: string) => void;
  readonly signal?: AbortSignal;
}

/** One point of the accuracy-vs-training-time figure. */
export interface TradeoffPoint {
  /** `l2s`, `crf-lbfgs`, `crf-ap`, `crf-sgd`. */
  readonly system: string;
  /** Passes, iterations or epochs. */
  readonly budget: number;
  readonly trainingSeconds: number;
  /** Token accuracy (%) for POS, conlleval F1 (%) for NER. */
  readonly score: number;
  /** Output sequences that break the scheme (BIO). */
  readonly invalid: number;
}

export interface L2sDatasetResult {
  readonly dataset: L2sDatasetName;
  readonly metric: "accuracy" | "f1";
  readonly trainSentences: number;
  readonly devSentences: number;
  readonly labels: number;
  readonly points: readonly TradeoffPoint[];
  /** L2S without the constraint bridge (most passes): invalid sequences it emits. */
  readonly withoutBridge?: TradeoffPoint;
}

export interface ParsingRow {
  readonly learner: "csoaa" | "perceptron";
  readonly oracle: "dynamic" | "static";
  readonly passes: number;
  readonly trainingSeconds: number;
  readonly tags: "gold" | "predicted";
  readonly uas: number;
  readonly las: number;
  readonly uasNoPunct: number;
  readonly lasNoPunct: number;
  /** Sentences parsed per second on one core (the predicted-tags rows include no tagging time). */
  readonly sentencesPerSecond: number;
}

export interface ParsingResult {
  readonly trainSentences: number;
  readonly devSentences: number;
  /** Token accuracy (%) of the tagger that gives the predicted UPOS (an L2S perceptron tagger, 5 passes). */
  readonly taggerAccuracy: number;
  readonly rows: readonly ParsingRow[];
}

export interface L2sBenchmarkResult {
  readonly datasets: readonly L2sDatasetResult[];
  readonly parsing: ParsingResult | null;
  readonly unavailable: readonly { readonly dataset: string; readonly reason: string }[];
}

const seconds = (from: number) => (performance.now() - from) / 1000;

/**
 * chang2016's Figure 6 on our data: accuracy (UD English EWT UPOS) and F1 (CoNLL-2003 NER, dev =
 * testa) against training time, for L2S at several pass counts and for our chain CRF (L-BFGS at
 * several iteration caps, averaged perceptron, SGD) on the same features in the same run, every
 * system on one thread; and dependency parsing on UD English EWT (train → dev): UAS and LAS with
 * gold and predicted UPOS, dynamic vs static oracle, sentences per second.
 */
export async function l2sBenchmark(options: L2sBenchmarkOptions = {}): Promise<L2sBenchmarkResult> {
  const status = options.onStatus ?? (() => {});
  const registry = standardDecoders();
  const datasets: L2sDatasetResult[] = [];
  const unavailable: { dataset: string; reason: string }[] = [];
  const cuts = {
    maxTrainSentences: options.maxTrainSentences,
    maxDevSentences: options.maxDevSentences,
  };

  for (const name of options.datasets ?? L2S_DEFAULT_DATASETS) {
    const { registry: source, relabel } = SETTINGS[name];
    const splits = await openBenchSplits(source, { ...cuts, relabel }, (reason) =>
      unavailable.push({ dataset: name, reason }),
    );
    if (splits === null) continue;
    const { train, dev } = splits;
    const { preset: presetName, metric } = SETTINGS[name];
    const preset = getPreset(presetName);
    const scheme: LabelScheme = train.scheme;
    status(
      `${name}: ${train.sentences.length} training, ${dev.sentences.length} evaluation sentences`,
    );
    // Features once: every system trains on the same attributes, and their extraction is not
    // counted in anyone's training time.
    const trainAttributes: AttributeSequence[] = train.sentences.map((s) =>
      sentenceAttributes(preset, s),
    );
    const devAttributes = dev.sentences.map((s) => sentenceAttributes(preset, s));
    const gold = dev.sentences.map((s) => s.labels!);
    const score = (predicted: readonly (readonly string[])[]) =>
      100 *
      (metric === "accuracy"
        ? evaluateTokens(gold, predicted).accuracy
        : evaluateChunks(gold, predicted).f1);
    const invalid = (predicted: readonly (readonly string[])[]) =>
      scheme === "none" ? 0 : predicted.filter((p) => !isValidScheme(p, scheme)).length;
    const points: TradeoffPoint[] = [];

    for (const base of BASE_LEARNERS) {
      for (const passes of options.l2sPasses ?? [0.25, 0.5, 1, 2, 4]) {
        const started = performance.now();
        const trained = await trainL2sTagger(train, {
          preset: presetName,
          passes,
          learner: { kind: base },
          attributes: trainAttributes,
          ...(options.seed === undefined ? {} : { seed: options.seed }),
          ...(options.signal === undefined ? {} : { signal: options.signal }),
        });
        const trainingSeconds = seconds(started);
        const predicted = tagWithL2s(l2sTaggerOf(trained.model), dev.sentences, registry);
        points.push({
          system: `l2s-${base}`,
          budget: passes,
          trainingSeconds,
          score: score(predicted),
          invalid: invalid(predicted),
        });
        status(
          `${name}: l2s (${base}) ${passes} passes: ${trainingSeconds.toFixed(1)} s, ${points.at(-1)!.score.toFixed(2)}`,
        );
      }
    }
    let withoutBridge: TradeoffPoint | undefined;
    if (scheme !== "none") {
      // What the bridge prevents: the same tagger (csoaa, one pass) with the scheme's mask off.
      const started = performance.now();
      const trained = await trainL2sTagger(train, {
        preset: presetName,
        passes: 1,
        bridge: false,
        attributes: trainAttributes,
        ...(options.seed === undefined ? {} : { seed: options.seed }),
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      });
      const trainingSeconds = seconds(started);
      const predicted = tagWithL2s(l2sTaggerOf(trained.model), dev.sentences, registry);
      withoutBridge = {
        system: "l2s-csoaa-no-bridge",
        budget: 1,
        trainingSeconds,
        score: score(predicted),
        invalid: invalid(predicted),
      };
    }

    const crfRuns: {
      system: string;
      algorithm: "lbfgs" | "ap" | "sgd";
      budgets: readonly number[];
    }[] = [
      {
        system: "crf-lbfgs",
        algorithm: "lbfgs",
        budgets: options.lbfgsIterations ?? [10, 25, 50, 100],
      },
      { system: "crf-ap", algorithm: "ap", budgets: options.perceptronEpochs ?? [1, 3, 10] },
      { system: "crf-sgd", algorithm: "sgd", budgets: options.sgdEpochs ?? [1, 3, 10] },
    ];
    const sequences = train.sentences.map((s, i) => ({
      attributes: trainAttributes[i]!,
      labels: s.labels!,
    }));
    for (const run of crfRuns) {
      for (const budget of run.budgets) {
        const started = performance.now();
        const result = await trainCrf(sequences, {
          algorithm: run.algorithm,
          maxIterations: budget,
          threads: 1,
          preset: presetName,
          constraintsFor: (labels) => decodingMask(labels, scheme) ?? {},
          ...(options.signal === undefined ? {} : { signal: options.signal }),
        });
        const trainingSeconds = seconds(started);
        const predicted = devAttributes.map((a) => result.model.tag(a));
        points.push({
          system: run.system,
          budget,
          trainingSeconds,
          score: score(predicted),
          invalid: invalid(predicted),
        });
        status(
          `${name}: ${run.system} ${budget}: ${trainingSeconds.toFixed(1)} s, ${points.at(-1)!.score.toFixed(2)}`,
        );
      }
    }
    datasets.push({
      dataset: name,
      metric,
      trainSentences: train.sentences.length,
      devSentences: dev.sentences.length,
      labels: new Set(train.sentences.flatMap((s) => s.labels!)).size,
      points,
      ...(withoutBridge === undefined ? {} : { withoutBridge }),
    });
  }

  let parsing: ParsingResult | null = null;
  if (options.parsing ?? true) {
    const data = await openBenchSplits("ud-en-ewt", cuts, (reason) =>
      unavailable.push({ dataset: "ud-en-ewt", reason }),
    );
    if (data !== null) parsing = await parsingTable(data.train, data.dev, options, status);
  }
  return { datasets, parsing, unavailable };
}

function isValidScheme(labels: readonly string[], scheme: LabelScheme): boolean {
  return schemeViolations(labels, scheme).length === 0;
}

async function parsingTable(
  train: Corpus,
  dev: Corpus,
  options: L2sBenchmarkOptions,
  status: (line: string) => void,
): Promise<ParsingResult> {
  const devSentences = conlluSentences(dev, "parsing");
  // Predicted UPOS from an L2S tagger trained on the same training split.
  const tagger = await trainL2sTagger(train, {
    preset: "pos",
    passes: 5,
    learner: { kind: "perceptron" },
    ...(options.seed === undefined ? {} : { seed: options.seed }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  const predictedTags = tagWithL2s(l2sTaggerOf(tagger.model), devSentences, standardDecoders());
  const taggerAccuracy =
    100 *
    evaluateTokens(
      devSentences.map((s) => s.labels!),
      predictedTags,
    ).accuracy;
  const rows: ParsingRow[] = [];
  const evaluate = (predicted: readonly ConlluSentence[]) => ({
    include: evaluateDependencies(devSentences, predicted, { punctuation: "include" }),
    exclude: evaluateDependencies(devSentences, predicted, { punctuation: "exclude" }),
  });
  const runs: { learner: "csoaa" | "perceptron"; oracle: "dynamic" | "static"; passes: number }[] =
    [];
  for (const oracle of ["dynamic", "static"] as const) {
    for (const passes of options.parserPasses ?? [1, 3, 5]) {
      runs.push({ learner: "perceptron", oracle, passes });
    }
  }
  const csoaaPasses = options.csoaaParserPasses ?? 1;
  if (csoaaPasses > 0) runs.push({ learner: "csoaa", oracle: "dynamic", passes: csoaaPasses });
  for (const { learner, oracle, passes } of runs) {
    const started = performance.now();
    const trained = await trainL2sParser(train, {
      oracle,
      passes,
      learner: { kind: learner },
      ...(options.seed === undefined ? {} : { seed: options.seed }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    const trainingSeconds = seconds(started);
    const parser = l2sParserOf(trained.model);
    for (const tags of ["gold", "predicted"] as const) {
      const parsingStarted = performance.now();
      const parsed = parseWithL2s(
        parser,
        devSentences,
        tags === "gold" ? undefined : predictedTags,
      );
      const parseSeconds = seconds(parsingStarted);
      const scores = evaluate(parsed);
      rows.push({
        learner,
        oracle,
        passes,
        trainingSeconds,
        tags,
        uas: 100 * scores.include.uas,
        las: 100 * scores.include.las,
        uasNoPunct: 100 * scores.exclude.uas,
        lasNoPunct: 100 * scores.exclude.las,
        sentencesPerSecond: devSentences.length / parseSeconds,
      });
      const row = rows.at(-1)!;
      status(
        `parsing: ${learner}, ${oracle} oracle, ${passes} passes, ${tags} UPOS: UAS ${row.uas.toFixed(2)} LAS ${row.las.toFixed(2)}, ${row.sentencesPerSecond.toFixed(0)} sentences/s`,
      );
    }
  }
  return {
    trainSentences: train.sentences.length,
    devSentences: devSentences.length,
    taggerAccuracy,
    rows,
  };
}
