import { gzipSync } from "node:zlib";
import {
  type CrfModel,
  firstStageModel,
  loadModelFromBytes,
  modelToBytes,
  type PruneOptions,
  QUANTISATION_BLOCK_SIZE,
} from "@lagrange/chain-crf";
import { formatByteSize } from "@lagrange/core/bytes";
import { readModelBytes } from "../inputs.js";
import { interruptible } from "../interruption.js";
import { writeOutput } from "../output.js";

export interface CompressOptions {
  readonly model: string;
  readonly out: string;
  readonly bits: "8" | "16" | "32";
  readonly pruneBelow?: number;
  readonly keep?: number;
}

const PRECISION = { "8": "int8", "16": "int16", "32": "float32" } as const;

/**
 * `lagrange compress`: returns the summary (sizes before and after, the largest weight change);
 * the model is written atomically, in the compact layout. An embedded first stage is re-encoded alike but not pruned:
 * its votes are the second stage's features, which a cut would shift under it.
 */
export async function compressCommand(
  options: CompressOptions,
  signal?: AbortSignal,
): Promise<string> {
  return writeOutput(options.out, { option: "--out", signal }, async (output) => {
    const before = await readModelBytes(options.model, "--model", signal);
    const model = loadModelFromBytes(before, options.model);
    const precision = PRECISION[options.bits];
    const prune: PruneOptions =
      options.pruneBelow !== undefined
        ? { below: options.pruneBelow }
        : options.keep !== undefined
          ? { keep: options.keep }
          : {};
    // Zero weights go whatever the options (no score changes).
    let small = model.pruned(prune);
    if (prune.below !== undefined || prune.keep !== undefined) {
      small = small.withSettings({ pruned: { ...prune } });
    }
    const encoding = { precision, compactLayout: true } as const;
    const first = firstStageModel(model, options.model);
    if (first !== null) small = small.withFirstStage(modelToBytes(first, encoding));
    const bytes = modelToBytes(small, encoding);
    // Read back as every reader will, so that what is written passes every check.
    const back = loadModelFromBytes(bytes, options.out);
    const backFirst = firstStageModel(back, options.out);
    const moved = Math.max(
      largestChange(small, back),
      first === null || backFirst === null ? 0 : largestChange(first, backFirst),
    );
    await output.write(bytes);
    const S = (m: CrfModel) => m.layout.featureLabels.length.toLocaleString("en-US");
    const stored =
      precision === "float32"
        ? "float32 weights"
        : `${precision} weights, one scale per ${QUANTISATION_BLOCK_SIZE}`;
    return [
      `compressed ${options.model}: ${stored}, compact layout; ${S(model)} → ${S(small)} state features${keptAbove(small)}`,
      `  size      ${formatByteSize(before.length)} → ${formatByteSize(bytes.length)}`,
      `  gzipped   ${formatByteSize(gzipSync(before).length)} → ${formatByteSize(gzipSync(bytes).length)}`,
      `  weights   max |Δw| ${moved.toPrecision(3)} (the kept weights, against the input's)`,
      ...(first === null ? [] : [`  first stage ${stored}, not pruned`]),
      `wrote ${options.out}`,
      "",
    ].join("\n");
  });
}

/** The weakest state weight a pruned model keeps, as the summary shows it. */
function keptAbove(model: CrfModel): string {
  let weakest = Number.POSITIVE_INFINITY;
  for (let f = 0; f < model.layout.transitionBase; f++) {
    weakest = Math.min(weakest, Math.abs(model.weights[f]!));
  }
  return Number.isFinite(weakest) ? ` (each |w| ≥ ${weakest.toPrecision(3)})` : "";
}

/** The largest |Δw| between two models of one layout (the weights, then any trigrams). */
function largestChange(a: CrfModel, b: CrfModel): number {
  let largest = 0;
  for (const [x, y] of [
    [a.weights, b.weights],
    [a.trigrams, b.trigrams],
  ] as const) {
    if (x === null || y === null) continue;
    for (let k = 0; k < x.length; k++) largest = Math.max(largest, Math.abs(x[k]! - y[k]!));
  }
  return largest;
}

/** What `lagrange compress` does (its options are declared in ../define/compress.ts). */
export async function compressAction(opts: CompressOptions): Promise<void> {
  process.stdout.write(await interruptible((signal) => compressCommand(opts, signal)));
}
