/**
 * `bcrf` and `mean-field` as core decoders, so every app reaches them by name through the one
 * registry (`--decoder bcrf`): they read a {@link DecodeProblem}'s chain scores — a CRF's or a
 * Bregman CRF's, the features are the same — and decode approximately, with no certificate.
 */
import {
  checkOptionBounds,
  type DecodeOptions,
  type DecodeProblem,
  type Decoder,
  type DecoderDefinition,
  type DecoderOptionSpec,
  type Decoding,
  type OptionBounds,
} from "@lagrange/core";
import { MAX_ITERATIONS } from "@lagrange/core/dual-decomposition";
import { mbrDecode, ValidDecodeWorkspace, validDecode } from "../decoding/decode.js";
import { BcrfWorkspace } from "../inference/bcrf-workspace.js";
import { emptyChainInput, labellingScore, loadChainScores } from "../inference/chain-input.js";
import {
  BCRF_DECODING_TEMPERATURE,
  BCRF_DEFAULT_ITERATIONS,
  bcrfInference,
} from "../inference/ibp.js";
import type { IbpStatus } from "../inference/ibp-types.js";
import {
  MEAN_FIELD_DEFAULTS,
  MeanFieldWorkspace,
  meanFieldDecode,
  meanFieldMarginals,
} from "../mean-field/mean-field.js";

const NEG = Number.NEGATIVE_INFINITY;
const NO_MULTIPLIERS = new Float64Array(0);

/** The paper's decoding settings: k = 5 half-steps at τ⁻¹ = 10, validity-aware output. */
export const BCRF_DECODING_DEFAULTS = {
  iterations: 5,
  temperature: BCRF_DECODING_TEMPERATURE,
  output: "valid",
} as const;

export interface BcrfDecodeOptions extends DecodeOptions {
  /** IBP half-steps (Bcrf) or parallel updates (mean field); default 5 / 10. */
  readonly iterations?: number;
  /** τ of the projection (Bcrf; default 0.1) or of the mean-field softmax (default 1). */
  readonly temperature?: number;
  /**
   * Bcrf: "valid" (default) is Viterbi over the Bcrf marginals restricted to the allowed
   * transitions, so BIO/BIES output is always well formed; "mbr" the per-position argmax of the
   * paper, which footnote 4 warns may not be.
   */
  readonly output?: "valid" | "mbr";
  /**
   * Mean field: what to do with forbidden (−∞) transitions, which its updates cannot represent.
   * "ignore" (default) drops them, so the output may break them (reported as `hardViolated`);
   * "fail" decodes nothing and reports the sentence `infeasible`.
   */
  readonly forbidden?: "fail" | "ignore";
}

/**
 * The options as a library caller may pass them, checked by core's one check: a count that is not
 * a whole number from 0 to core's MAX_ITERATIONS or a temperature that is not a finite number > 0
 * is a ProblemValidationError (not a RangeError from deep inside, nor, for a count of 1e308, a
 * loop that never ends in practice). Apps take the declared `iterations` from 1.
 */
const DECODE_OPTION_BOUNDS: readonly OptionBounds[] = [
  { key: "iterations", type: "integer", min: 0, max: MAX_ITERATIONS },
  { key: "temperature", type: "number", above: 0 },
];

/** A decoder that also reads {@link BcrfDecodeOptions}. */
export interface ApproximateDecoder extends Decoder {
  decode(problem: DecodeProblem, options?: BcrfDecodeOptions): Decoding;
  /**
   * The decoder's tag marginals (n·L, label t of position i at i·L + t; a fresh array): Bcrf's
   * at τ = 1 with the training's 10 half-steps, the distribution the bcrf objective fits (its
   * decoding sharpens them at τ = 0.1, nearly 0/1: no confidence to read); mean field's after
   * its updates, those it decodes. All zero when no labelling is feasible.
   */
  marginals(problem: DecodeProblem, options?: BcrfDecodeOptions): Float64Array;
}

function approximateDecoding(
  labels: Int32Array,
  score: number,
  status: "converged" | "iteration-limit" | "infeasible",
  iterations: number,
  breaksMasks: boolean,
): Decoding {
  return {
    labels,
    primal: score,
    // No dual bound: an approximate decoder certifies nothing.
    dual: Number.POSITIVE_INFINITY,
    status,
    iterations,
    certified: false,
    gap: Number.POSITIVE_INFINITY,
    // A labelling that breaks the mask counts as one hard violation in a run's summary.
    ...(breaksMasks
      ? {
          constraintStats: {
            multipliers: NO_MULTIPLIERS,
            firstLabels: labels,
            firstViolated: 0,
            violated: 0,
            hardViolated: 1,
          },
        }
      : {}),
  };
}

function ibpStatus(status: IbpStatus): "converged" | "iteration-limit" | "infeasible" {
  return status;
}

/** Bcrf decoding: IBP at τ, then validity-aware (or MBR) labels from the tag marginals. */
export function bcrfDecoder(defaults: BcrfDecodeOptions = {}): ApproximateDecoder {
  const loaded = emptyChainInput();
  const ws = new BcrfWorkspace();
  const valid = new ValidDecodeWorkspace();
  return {
    name: "bcrf",
    decode(problem: DecodeProblem, options: BcrfDecodeOptions = {}): Decoding {
      checkOptionBounds(DECODE_OPTION_BOUNDS, options);
      const input = loadChainScores(problem.scores, loaded);
      const { n, L } = input;
      const iterations =
        options.iterations ?? defaults.iterations ?? BCRF_DECODING_DEFAULTS.iterations;
      const temperature =
        options.temperature ?? defaults.temperature ?? BCRF_DECODING_DEFAULTS.temperature;
      const output = options.output ?? defaults.output ?? BCRF_DECODING_DEFAULTS.output;
      const result = bcrfInference(input, { iterations, temperature }, ws);
      const labels = new Int32Array(n);
      if (result.status === "infeasible") {
        return approximateDecoding(labels, NEG, "infeasible", result.iterations, false);
      }
      // Without a forbidden label or pair, Viterbi over log-marginals is the per-position argmax.
      const anyForbidden = ws.hasZeros || !ws.factored;
      if (
        output === "mbr" ||
        !anyForbidden ||
        validDecode(ws.marginals, input, valid, labels) === NEG
      ) {
        mbrDecode(ws.marginals, n, L, labels);
      }
      const score = labellingScore(input, labels);
      return approximateDecoding(
        labels,
        score,
        ibpStatus(result.status),
        result.iterations,
        score === NEG,
      );
    },
    marginals(problem: DecodeProblem, options: BcrfDecodeOptions = {}): Float64Array {
      checkOptionBounds(DECODE_OPTION_BOUNDS, options);
      const input = loadChainScores(problem.scores, loaded);
      const result = bcrfInference(
        input,
        {
          iterations: options.iterations ?? defaults.iterations ?? BCRF_DEFAULT_ITERATIONS,
          temperature: options.temperature ?? defaults.temperature ?? 1,
        },
        ws,
      );
      const size = input.n * input.L;
      return result.status === "infeasible" ? new Float64Array(size) : ws.marginals.slice(0, size);
    },
  };
}

/** Mean-field decoding: k parallel updates from the unary softmax, per-position argmax. */
export function meanFieldDecoder(defaults: BcrfDecodeOptions = {}): ApproximateDecoder {
  const loaded = emptyChainInput();
  const ws = new MeanFieldWorkspace();
  let marginals = new Float64Array(0);
  const infer = (problem: DecodeProblem, options: BcrfDecodeOptions) => {
    checkOptionBounds(DECODE_OPTION_BOUNDS, options);
    const input = loadChainScores(problem.scores, loaded);
    const { n, L } = input;
    if (marginals.length < n * L)
      marginals = new Float64Array(Math.max(n * L, 2 * marginals.length));
    const result = meanFieldMarginals(
      input,
      {
        iterations: options.iterations ?? defaults.iterations ?? MEAN_FIELD_DEFAULTS.iterations,
        temperature: options.temperature ?? defaults.temperature ?? 1,
        forbidden: options.forbidden ?? defaults.forbidden ?? "ignore",
      },
      ws,
      marginals,
    );
    return { input, n, L, result };
  };
  return {
    name: "mean-field",
    marginals(problem: DecodeProblem, options: BcrfDecodeOptions = {}): Float64Array {
      const { n, L, result } = infer(problem, options);
      return result.status === "unsupported" || result.status === "infeasible"
        ? new Float64Array(n * L)
        : marginals.slice(0, n * L);
    },
    decode(problem: DecodeProblem, options: BcrfDecodeOptions = {}): Decoding {
      const { input, n, L, result } = infer(problem, options);
      const labels = new Int32Array(n);
      if (result.status === "unsupported" || result.status === "infeasible") {
        return approximateDecoding(labels, NEG, "infeasible", result.iterations, false);
      }
      meanFieldDecode(marginals, n, L, labels);
      const score = labellingScore(input, labels);
      return approximateDecoding(labels, score, result.status, result.iterations, score === NEG);
    },
  };
}

/** `iterations` of a decoder whose default is `fallback` (apps take 1 to core's cap, as before). */
function iterationsOption(help: string, fallback: number): DecoderOptionSpec {
  return {
    name: "iterations",
    key: "iterations",
    type: "integer",
    help,
    default: fallback,
    min: 1,
    max: MAX_ITERATIONS,
  };
}

export const bcrfDefinition: DecoderDefinition = {
  name: "bcrf",
  description:
    "Bregman CRF inference (corro): k = 5 parallel Bregman-projection half-steps at τ = 0.1, then Viterbi over its marginals within the allowed transitions (always valid)",
  accepts: { constraints: false, slaves: false },
  capabilities: { certificate: "none" },
  options: [
    iterationsOption(
      "Bregman-projection half-steps before decoding the marginals",
      BCRF_DECODING_DEFAULTS.iterations,
    ),
  ],
  create: () => bcrfDecoder(),
};

export const meanFieldDefinition: DecoderDefinition = {
  name: "mean-field",
  description:
    "naive mean field (the Bcrf paper's baseline): 10 parallel updates, per-position argmax; cannot represent −∞ transitions, so its output may break the scheme's mask",
  accepts: { constraints: false, slaves: false },
  capabilities: { certificate: "none" },
  options: [iterationsOption("parallel mean-field updates", MEAN_FIELD_DEFAULTS.iterations)],
  create: () => meanFieldDecoder(),
};
