import { totalmem } from "node:os";
import {
  AttributeFrequencyError,
  TrainingMemoryError,
  type TrainingPreparation,
} from "@lagrange/chain-crf";
import { formatByteSize } from "@lagrange/core/bytes";
import { trainingMemoryBound } from "@lagrange/recipes";
import { usageError } from "./exit-codes.js";
import { note, warn } from "./progress.js";

/**
 * Training's memory bound when `--max-memory` is not given: half the machine's memory, and never
 * above 8 GB. Real corpora need far less (CoNLL-2000 chunking about 0.3 GB, UMass citations less);
 * what passes it is a label set of thousands (L² transition weights, a dozen copies for L-BFGS),
 * which deserves a question before the machine starts swapping.
 */
export const DEFAULT_TRAINING_MEMORY_CAP = 8e9;

export function defaultTrainingMemoryLimit(): number {
  return Math.min(DEFAULT_TRAINING_MEMORY_CAP, Math.floor(totalmem() / 2));
}

/** The library's bound for `--max-memory` (undefined: none). */
export function trainingMemoryLimit(maxMemory: number | null | undefined): number | undefined {
  if (maxMemory === undefined) return defaultTrainingMemoryLimit();
  // `--max-memory none`: parseByteSize's null, which commander stores as "".
  return typeof maxMemory === "number" ? maxMemory : undefined;
}

/**
 * The CRF training options `--max-memory` sets: recipes' bound (refused with a
 * {@link TrainingMemoryError} before the trainer's buffers exist), and a report of the layout
 * once, though a general CRF trains one CRF per fold.
 */
export function memoryOptions(
  maxMemory: number | null | undefined,
  general = false,
): {
  readonly onPrepared: (preparation: TrainingPreparation) => void;
} {
  let reported = false;
  return trainingMemoryBound({
    limitBytes: trainingMemoryLimit(maxMemory),
    general,
    onEstimate: (preparation, needed) => {
      if (reported) return;
      reported = true;
      reportPreparation(preparation, needed);
    },
  });
}

/**
 * What the command line says once the layout is known: a warning when `--min-freq` left almost
 * no attribute, a note when training will take more than a gigabyte.
 */
function reportPreparation(p: TrainingPreparation, needed: number): void {
  if (p.minAttributeFrequency > 1 && p.attributes < 0.01 * p.attributesSeen) {
    warn(
      `--min-freq ${p.minAttributeFrequency} keeps ${p.attributes} of ${p.attributesSeen} attributes (${((100 * p.attributes) / p.attributesSeen).toFixed(2)}%; the most frequent occurs ${p.highestAttributeCount} times): the model will tag mostly by label transitions`,
    );
  }
  if (needed > 1e9) note(`training needs about ${formatByteSize(needed)} of memory`);
}

/**
 * The library's refusals in the command line's words: which flag to change. Other errors are
 * returned as they are.
 */
export function trainingRefusal(error: unknown): unknown {
  if (error instanceof TrainingMemoryError) {
    const ask = Math.ceil((1.2 * error.neededBytes) / 1e9);
    return usageError(
      `${error.message}; pass --max-memory ${ask}G to proceed (the default bound is half this machine's memory, at most ${formatByteSize(DEFAULT_TRAINING_MEMORY_CAP)}), or train on fewer labels (the transitions grow as labels²) or raise --min-freq`,
    );
  }
  if (error instanceof AttributeFrequencyError) {
    return usageError(
      `--min-freq ${error.minFrequency} removes every attribute (the most frequent occurs ${error.highestCount} times): the model would tag by label transitions alone; lower it to ${error.highestCount} or less`,
    );
  }
  return error;
}
