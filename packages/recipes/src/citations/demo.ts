import { COUNT_FAMILIES } from "@lagrange/constraint-templates";
import { constraintEffects } from "@lagrange/core/dual-decomposition";
import { evaluateSegments } from "@lagrange/datasets";
import {
  type LearnedConstraints,
  learnConstraints,
  type PenaltyLearningOptions,
} from "../constraint-learning.js";
import { type DecoderTiming, timeTaggers } from "../timing.js";
import {
  type CitationExperiment,
  type DecodedTest,
  decodeTest,
  errorReduction,
  experimentTagger,
} from "./experiment.js";

export interface CitationDemoOptions
  extends Pick<PenaltyLearningOptions, "epochs" | "onEpoch" | "signal"> {
  /** Timed runs of the timing harness (default 3). */
  readonly timingRuns?: number;
}

/** A citation the constraints changed, with both labellings and the constraints that did it. */
export interface ChangedCitation {
  /** Index in the test half. */
  readonly index: number;
  readonly tokens: readonly string[];
  readonly gold: readonly string[];
  readonly viterbi: readonly string[];
  readonly constrained: readonly string[];
  /** Up to three constraints, in words, that removed violation or pushed on the scores. */
  readonly because: readonly string[];
}

export interface CitationDemo {
  readonly learned: LearnedConstraints;
  readonly learnSeconds: number;
  readonly viterbi: DecodedTest;
  readonly softDD: DecodedTest;
  /** Relative field-F1 error reduction of Soft-DD over Viterbi, %. */
  readonly errorReduction: number;
  /** The timing harness, Viterbi first. */
  readonly timing: readonly DecoderTiming[];
  /** Undefined when no citation changed. */
  readonly example: ChangedCitation | undefined;
}

/**
 * The main job on a prepared experiment (anzaroot2014 in one screen): learn the count families'
 * penalties on the learning half, decode the test half with Viterbi and with Soft-DD, time both
 * through the harness, and pick a citation the constraints changed (preferring one they fixed).
 */
export async function citationDemo(
  experiment: CitationExperiment,
  options: CitationDemoOptions = {},
): Promise<CitationDemo> {
  const signal = options.signal === undefined ? {} : { signal: options.signal };
  const started = performance.now();
  const learned = await learnConstraints(experiment.base.model, experiment.learn, {
    families: COUNT_FAMILIES,
    threshold: 2.75,
    countUnit: "segment",
    epochs: options.epochs ?? 5,
    ...(options.onEpoch === undefined ? {} : { onEpoch: options.onEpoch }),
    ...signal,
  });
  const learnSeconds = (performance.now() - started) / 1000;
  const viterbi = await decodeTest(experiment, "viterbi", undefined, signal);
  const softDD = await decodeTest(experiment, "soft-dd", learned.entries, signal);
  const timing = await timeTaggers(
    [
      experimentTagger(experiment, "viterbi"),
      experimentTagger(experiment, "soft-dd", learned.entries),
    ],
    experiment.testSentences,
    { runs: options.timingRuns ?? 3, ...signal },
  );
  return {
    learned,
    learnSeconds,
    viterbi,
    softDD,
    errorReduction: errorReduction(viterbi.scores.f1, softDD.scores.f1),
    timing,
    example: changedCitation(experiment, viterbi, softDD),
  };
}

function changedCitation(
  experiment: CitationExperiment,
  viterbi: DecodedTest,
  constrained: DecodedTest,
): ChangedCitation | undefined {
  const gold = experiment.testGold;
  let best = -1;
  let bestGain = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < gold.length; i++) {
    const v = viterbi.labels[i]!;
    const c = constrained.labels[i]!;
    if (v.every((label, t) => label === c[t])) continue;
    const gain =
      evaluateSegments([gold[i]!], [c]).correctChunks -
      evaluateSegments([gold[i]!], [v]).correctChunks -
      v.length / 1000;
    if (gain > bestGain) {
      bestGain = gain;
      best = i;
    }
  }
  if (best < 0) return undefined;
  const effects = constraintEffects(
    constrained.constraints[best]!,
    constrained.decodings[best]!,
    experiment.base.model.numLabels,
  );
  const because = [
    ...new Set(
      effects
        .filter((e) => e.violationBefore > e.violationAfter || e.multiplier > 0)
        .map((e) => e.name),
    ),
  ].slice(0, 3);
  return {
    index: best,
    tokens: experiment.testSentences[best]!.tokens,
    gold: gold[best]!,
    viterbi: viterbi.labels[best]!,
    constrained: constrained.labels[best]!,
    because,
  };
}
