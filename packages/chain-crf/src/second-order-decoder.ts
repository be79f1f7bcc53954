import { type Decoder, type Decoding, exactDecoding, LagrangeError } from "@lagrange/core";
import type { CrfModel } from "./crf-model.js";
import { secondOrderViterbiKernel } from "./inference/second-order.js";
import { SecondOrderContext } from "./inference/second-order-context.js";
import { emptyView, setViewFromScores } from "./inference/view.js";

/**
 * The exact decoder of a second-order model: the problem's chain scores are the model's
 * first-order part (`model.scorer(mask, { firstOrderPart: true })`), and decoding adds the
 * model's label-trigram weights (second-order Viterbi over label pairs, L³ per token). Global
 * constraints, extra slaves and patterns are refused: no decoder combines them with trigrams.
 */
export function secondOrderDecoder(model: CrfModel): Decoder {
  const trigrams = model.trigrams;
  if (trigrams === null) {
    throw new LagrangeError("usage", "secondOrderDecoder needs a second-order model (trigrams)");
  }
  const ctx = new SecondOrderContext();
  const view = emptyView();
  return {
    name: "viterbi",
    decode(problem): Decoding {
      const extra =
        (problem.constraints?.length ?? 0) > 0
          ? "constraints"
          : (problem.slaves?.length ?? 0) > 0
            ? "slaves"
            : (problem.patterns?.length ?? 0) > 0
              ? "patterns"
              : null;
      if (extra !== null) {
        throw new LagrangeError(
          "usage",
          `a second-order model decodes with exact second-order Viterbi only, which takes no ${extra}`,
        );
      }
      const { scores } = problem;
      const labels = new Int32Array(scores.n);
      const score = secondOrderViterbiKernel(
        ctx,
        setViewFromScores(view, scores),
        trigrams,
        0,
        labels,
      );
      return exactDecoding(labels, score);
    },
  };
}
