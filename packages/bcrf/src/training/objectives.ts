/**
 * corro's training losses as chain-crf {@link SequenceObjective}s, so the CRF's features, presets,
 * trainers (L-BFGS, SGD), worker pool and model files serve them unchanged:
 * - `bcrf`: the Fenchel–Young loss of the Bregman CRF, B_Y(w) − ⟨w, y⟩, gradient ∇B_Y(w) − φ(y)
 *   read off IBP (§3.1); with partial labels B_Y(w) − B_Ỹ(w), two IBP calls (§3.2);
 * - `mean-field`: the cross-entropy of k unrolled mean-field updates (the paper's MF baseline).
 */
import {
  type ChainGradient,
  type ChainInput,
  emptyChainInput,
  type ObjectiveSource,
  type SequenceObjective,
} from "@lagrange/chain-crf";
import { BcrfWorkspace } from "../inference/bcrf-workspace.js";
import { labellingScore } from "../inference/chain-input.js";
import { BCRF_DEFAULT_ITERATIONS, bcrfInference } from "../inference/ibp.js";
import { bcrfValue } from "../inference/value.js";
import {
  MEAN_FIELD_DEFAULTS,
  MeanFieldWorkspace,
  meanFieldLoss,
} from "../mean-field/mean-field.js";

const NEG = Number.NEGATIVE_INFINITY;

export const TRAINING_OBJECTIVES = ["crf", "bcrf", "mean-field"] as const;
export type TrainingObjectiveName = (typeof TRAINING_OBJECTIVES)[number];

export interface BcrfTrainingOptions {
  /** IBP half-steps per loss evaluation (default 10, the paper's training setting). */
  readonly iterations?: number;
  /** Stop IBP earlier once the marginal constraints hold to this (default 0: never). */
  readonly tolerance?: number;
}

export interface MeanFieldTrainingObjectiveOptions {
  /** Unrolled mean-field updates (default 10). */
  readonly iterations?: number;
}

/** What a worker thread needs to rebuild an objective. */
export type ObjectiveSpec =
  | ({ readonly kind: "bcrf" } & BcrfTrainingOptions)
  | ({ readonly kind: "mean-field" } & MeanFieldTrainingObjectiveOptions);

/**
 * The module workers import {@link restoreObjective} from: bcrf-objectives, a file of its own
 * beside this one (a bundle keeps it as an entry point of that name, flat beside the chunk that
 * holds this code, where import.meta.url itself would name a chunk without the export).
 */
function sourceOf(spec: ObjectiveSpec): ObjectiveSource {
  const ext = import.meta.url.endsWith(".ts") ? "ts" : "js";
  const module = new URL(`./bcrf-objectives.${ext}`, import.meta.url).href;
  return { module, exportName: "restoreObjective", options: spec };
}

/** Rebuilds an objective from its spec (the export worker threads call). */
export function restoreObjective(spec: ObjectiveSpec): SequenceObjective {
  return spec.kind === "bcrf" ? bcrfObjective(spec) : meanFieldObjective(spec);
}

/** The Bregman CRF's Fenchel–Young loss (full or partial labels) at τ = 1. */
export function bcrfObjective(options: BcrfTrainingOptions = {}): SequenceObjective {
  const iterations = options.iterations ?? BCRF_DEFAULT_ITERATIONS;
  const tolerance = options.tolerance ?? 0;
  const ibp = { iterations, tolerance, temperature: 1 };
  const all = new BcrfWorkspace();
  const consistent = new BcrfWorkspace();
  const clamped: ChainInput = emptyChainInput();
  return {
    name: "bcrf",
    partialLabels: true,
    source: sourceOf({ kind: "bcrf", iterations, tolerance }),
    loss(input, gold, goldBase, labelMask, gradient) {
      const n = input.n;
      const result = bcrfInference(input, ibp, all);
      if (result.status === "infeasible") {
        throw new RangeError("no labelling of the sentence is feasible under the training masks");
      }
      let partial = false;
      for (let i = 0; i < n; i++) if (gold[goldBase + i]! < 0) partial = true;
      if (!partial) {
        const score = goldScore(input, gold, goldBase);
        const value = bcrfValue(input, all, gradient);
        if (gradient !== null) subtractGold(input, gold, goldBase, gradient);
        return value - score;
      }
      // B_Ỹ: the same projection with the labels the annotation excludes set to −∞ (a face of
      // the integral polytope, so IBP's zeros stay zeros).
      clampLocal(input, gold, goldBase, labelMask, clamped);
      const inner = bcrfInference(clamped, ibp, consistent);
      if (inner.status === "infeasible") {
        throw new RangeError(
          "the partial annotation allows no labelling under the training masks (a known label or label set contradicts them)",
        );
      }
      return bcrfValue(input, all, gradient) - bcrfValue(clamped, consistent, gradient, -1);
    },
  };
}

/** Mean field's unrolled cross-entropy (fully labelled sentences, finite scores only). */
export function meanFieldObjective(
  options: MeanFieldTrainingObjectiveOptions = {},
): SequenceObjective {
  const iterations = options.iterations ?? MEAN_FIELD_DEFAULTS.iterations;
  const ws = new MeanFieldWorkspace();
  return {
    name: "mean-field",
    partialLabels: false,
    source: sourceOf({ kind: "mean-field", iterations }),
    loss(input, gold, goldBase, _labelMask, gradient) {
      return meanFieldLoss(input, gold, goldBase, { iterations }, ws, gradient);
    },
  };
}

/** The objective by name ("crf" is chain-crf's built-in likelihood: undefined). */
export function trainingObjective(
  name: TrainingObjectiveName,
  options: { readonly iterations?: number } = {},
): SequenceObjective | undefined {
  if (name === "crf") return undefined;
  if (name === "bcrf") return bcrfObjective(options);
  if (name === "mean-field") return meanFieldObjective(options);
  throw new RangeError(
    `unknown training objective "${name as string}"; expected one of ${TRAINING_OBJECTIVES.join(", ")}`,
  );
}

function goldScore(input: ChainInput, gold: Int32Array, base: number): number {
  const score = labellingScore(input, gold, base);
  if (score === Number.NEGATIVE_INFINITY) {
    throw new RangeError("the gold labelling is forbidden by the training masks");
  }
  return score;
}

function subtractGold(input: ChainInput, gold: Int32Array, base: number, g: ChainGradient): void {
  const { n, L } = input;
  const LL = L * L;
  for (let i = 0; i < n; i++) {
    const y = gold[base + i]!;
    g.rows[i * L + y]! -= 1;
    if (i > 0) {
      const pair = gold[base + i - 1]! * L + y;
      g.pairwise[pair]! -= 1;
      if (g.perPosition !== null) g.perPosition[(i - 1) * LL + pair]! -= 1;
    }
  }
}

/** `out` = `input` with −∞ local scores for the labels the partial annotation excludes. */
function clampLocal(
  input: ChainInput,
  gold: Int32Array,
  base: number,
  labelMask: Uint8Array | null,
  out: ChainInput,
): void {
  const { n, L } = input;
  if (out.local.length < n * L) out.local = new Float64Array(Math.max(n * L, 2 * out.local.length));
  const local = out.local;
  for (let i = 0; i < n; i++) {
    const y = gold[base + i]!;
    for (let t = 0; t < L; t++) {
      const keep = y >= 0 ? t === y : labelMask === null || labelMask[i * L + t] === 1;
      local[i * L + t] = keep ? input.local[input.localBase + i * L + t]! : NEG;
    }
  }
  out.n = n;
  out.L = L;
  out.localBase = 0;
  out.transition = input.transition;
  out.transitionBase = input.transitionBase;
  out.transitionStride = input.transitionStride;
  out.allowed = input.allowed;
}
