import {
  type CrfModel,
  loadModelFromBytes,
  MAX_WEIGHT_MAGNITUDE,
  modelToBytes,
  weightOutOfRange,
} from "@lagrange/chain-crf";
import { type L2sModel, l2sModelFromBytes, l2sModelToBytes } from "@lagrange/l2s";
import { TrainingFailedError } from "@lagrange/recipes";

/** What a trained model's bytes are checked with, for the message when they fail. */
export interface WrittenModelContext {
  /** `--out`: named by the message (the file itself is not written). */
  readonly out: string;
  readonly format?: string;
  readonly classWeight?: readonly string[];
}

/**
 * A trained CRF's model file, read back by the reader `tag` and `info` use before anything is
 * committed: training that drove a weight beyond what a model may hold (a huge --class-weight,
 * CRFsuite values scaling an unregularised perceptron) stops here, naming the weight and the
 * likely cause, instead of writing a model every later command refuses.
 */
export function checkedCrfModelBytes(model: CrfModel, context: WrittenModelContext): Uint8Array {
  const outside = weightOutOfRange(model);
  if (outside !== undefined) {
    throw new TrainingFailedError(
      `training drove a weight out of range: ${outside.feature} = ${outside.value} (a model holds finite weights of magnitude at most ${MAX_WEIGHT_MAGNITUDE})${causeText(context)}; ${context.out} was not written`,
    );
  }
  const bytes = modelToBytes(model);
  readBack(() => loadModelFromBytes(bytes, context.out), context);
  return bytes;
}

/** The same check for a learning-to-search model, by its own reader. */
export function checkedL2sModelBytes(model: L2sModel, context: WrittenModelContext): Uint8Array {
  const bytes = l2sModelToBytes(model);
  readBack(() => l2sModelFromBytes(bytes, context.out), context);
  return bytes;
}

function readBack(read: () => unknown, context: WrittenModelContext): void {
  try {
    read();
  } catch (error) {
    throw new TrainingFailedError(
      `the trained model does not read back: ${(error as Error).message}${causeText(context)}; ${context.out} was not written`,
    );
  }
}

/** The options that scale weights beyond the data's own evidence, when given, with the remedy. */
function causeText(context: WrittenModelContext): string {
  const causes = [
    ...(context.classWeight ?? []).map((spec) => `--class-weight ${spec} (lower it)`),
    ...(context.format === "crfsuite"
      ? [
          "the attribute values of the --format crfsuite data, each scaling its weight's updates (scale them down)",
        ]
      : []),
  ];
  return causes.length === 0 ? "" : `; driven there by ${causes.join(" or ")}`;
}
