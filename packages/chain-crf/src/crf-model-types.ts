import type { JsonValue, LabelSet, TransitionMask } from "@lagrange/core";
import type { FeatureLayout } from "./model/layout.js";

/** Per call options of the model's own decoding (`tag`, `marginals`, `kbest`, `chainScores`). */
export interface CrfDecodeOptions {
  /** Per call; overrides the model's `constraints`. */
  readonly constraints?: TransitionMask;
  /** Labels to force: a label name (or id) per position, null / −1 for a free position. */
  readonly fixed?: ReadonlyArray<string | number | null>;
}

export interface CrfModelInit {
  readonly labels: LabelSet;
  readonly attributes: LabelSet;
  readonly transitionAttributes?: LabelSet;
  readonly layout: FeatureLayout;
  readonly weights: Float64Array;
  /** Name of the feature preset the model was trained with (to extract the same attributes). */
  readonly preset?: string | null;
  /**
   * Training settings, stored in model files. The {@link ModelRecord} keys among them (`scheme`,
   * `taskPreset`, `decoder`, `generalCrf`, `learnedConstraints`) are read into the model's typed fields; the rest is
   * provenance.
   */
  readonly settings?: { readonly [key: string]: JsonValue };
  /** Default decoding constraints. */
  readonly constraints?: TransitionMask;
  /**
   * A two-stage model's first stage, as the bytes of its own model file: tagging runs it over a
   * document first and reads its votes (the second stage's `settings.features.votes`).
   */
  readonly firstStage?: Uint8Array | null;
  /**
   * A second-order model's label-trigram weights, (a, b, c) at a·L² + b·L + c (L³ of them),
   * added to the first-order scores of `weights`; null or absent for a first-order model.
   */
  readonly trigrams?: Float64Array | null;
}

/**
 * What a model records for the code that tags with it, beyond its weights: typed fields of the
 * model (a model file's header keeps each as a field of its own), where the rest of `settings`
 * is provenance, for people and `lagrange info`.
 */
export interface ModelRecord {
  /** The label scheme the model was trained under (IOB2, BIOES, …); null when it records none. */
  readonly scheme: string | null;
  /** The task preset the model was trained with (it chose the features and the decoder). */
  readonly taskPreset: string | null;
  /** The decoder the model is meant for (its task preset's); null: its kind's default. */
  readonly decoder: string | null;
  /** A general CRF's consistency model (recipes validates it); null for a plain chain CRF. */
  readonly generalCrf: JsonValue | null;
  /**
   * Constraints learned for the model (a constraints file's JSON; recipes parses it), decoded by
   * `decoder` whenever the user names no constraints; null when none were learned or kept.
   */
  readonly learnedConstraints: JsonValue | null;
}

/** The parts beyond a plain first-order chain that a model may use (a format 4 header names them). */
export type ModelFeature = "first-stage" | "second-order" | "general-crf" | "constraints";

/** The settings keys that hold a {@link ModelRecord}'s fields. Internal to the package. */
export const MODEL_RECORD_KEYS = [
  "scheme",
  "taskPreset",
  "decoder",
  "generalCrf",
  "learnedConstraints",
] as const;
/** The record's fields that hold a name. */
const NAME_FIELDS = ["scheme", "taskPreset", "decoder"] as const;

/**
 * The record of `settings`, or the reason it is malformed (a name that is not text): a model file
 * is input, so its loader reports the reason, where a model built in memory throws it.
 */
export function modelRecordOf(settings: {
  readonly [key: string]: JsonValue;
}): ModelRecord | string {
  for (const key of NAME_FIELDS) {
    const value = settings[key];
    if (value !== undefined && typeof value !== "string") {
      return `${key} is ${JSON.stringify(value)}; expected a name`;
    }
  }
  const text = (key: (typeof NAME_FIELDS)[number]) => (settings[key] as string | undefined) ?? null;
  return {
    scheme: text("scheme"),
    taskPreset: text("taskPreset"),
    decoder: text("decoder"),
    generalCrf: settings.generalCrf ?? null,
    learnedConstraints: settings.learnedConstraints ?? null,
  };
}

/** What {@link CrfModel.pruned} drops beyond the zero weights: weak state features. */
export interface PruneOptions {
  /** Drop the state features whose weight is smaller than this in magnitude (≥ 0). */
  readonly below?: number;
  /** Keep only this many state features, the strongest by |weight| (ties at the cut stay). */
  readonly keep?: number;
}

export interface ModelSummary {
  readonly labels: string[];
  readonly attributes: number;
  readonly transitionAttributes: number;
  readonly stateFeatures: number;
  readonly transitionFeatures: number;
  readonly weights: number;
  readonly nonZeroWeights: number;
  readonly startEnd: boolean;
  readonly preset: string | null;
  readonly settings: { readonly [key: string]: JsonValue };
  /** Size in bytes of the embedded first-stage model (a two-stage model), else null. */
  readonly firstStage: number | null;
  /** Label trigram weights (L³) of a second-order model; absent for a first-order one. */
  readonly trigrams?: number;
}

export interface MarginalsResult {
  readonly logPartition: number;
  /** p(y_i = t) at [i·L + t]. */
  readonly marginals: Float64Array;
}

export interface KBestLabels {
  readonly labels: string[][];
  readonly scores: number[];
}
