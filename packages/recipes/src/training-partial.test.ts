import { trainingObjective } from "@lagrange/bcrf";
import { lagrangeErrorCode } from "@lagrange/core";
import type { Corpus } from "@lagrange/datasets";
import { inferScheme, parseConll } from "@lagrange/datasets";
import { describe, expect, it } from "vitest";
import { trainOnCorpus } from "./training.js";

/** Partial annotations: an unknown label and label sets, one of them naming a label seen nowhere else. */
const PARTIAL = [
  "John\tB-PER\nSmith\tI-PER\nran\tO\n",
  "Mary\t?\nJones\tI-PER\nsang\tO\n",
  "in\tO\nRome\t{B-LOC,B-ORG}\n",
  "Paris\tB-LOC\nwon\t{O,B-MISC}\n",
  "Anna\tB-PER\nslept\tO\n",
].join("\n");

function corpus(text: string, label: string): Corpus {
  const sentences = parseConll(text, { file: label });
  return {
    label,
    format: "conll",
    sentences,
    scheme: inferScheme(sentences.flatMap((s) => (s.labels ? [s.labels] : []))),
  };
}

async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected a failure");
}

describe("trainOnCorpus with partial labels", () => {
  it("without partialLabels, ? and {…} are bad input at their file:line", async () => {
    const error = await failure(trainOnCorpus(corpus(PARTIAL, "p.conll"), { preset: "ner-words" }));
    expect(lagrangeErrorCode(error)).toBe("bad-input");
    expect(error.message).toMatch(
      /^p\.conll:5: gold label "\?" is a partial annotation.*--partial/,
    );
  });

  it("reads them with partialLabels: interns set labels, leaves partial dev sentences out", async () => {
    const result = await trainOnCorpus(corpus(PARTIAL, "p.conll"), {
      preset: "ner-words",
      maxIterations: 10,
      partialLabels: true,
      dev: corpus(PARTIAL, "dev.conll"),
    });
    expect(result.partialSentences).toBe(3);
    expect(result.heldOutExcluded).toBe(3);
    expect(result.schemeCheck.invalid).toBe(0);
    expect(result.model.labels.names()).toContain("B-ORG");
    expect(result.model.labels.names()).toContain("B-MISC");
    expect(result.bestHeldOut).toBeDefined();
  });

  it("a malformed set is bad input at its line", async () => {
    const text = "a\tO\nb\t{B-PER,\n\nc\tB-PER\n";
    const error = await failure(
      trainOnCorpus(corpus(text, "bad.conll"), { preset: "ner-words", partialLabels: true }),
    );
    expect(lagrangeErrorCode(error)).toBe("bad-input");
    expect(error.message).toMatch(/^bad\.conll:2: label set "\{B-PER,": expected a closing "\}"/);
  });

  it("mean field and the perceptron cannot train on them: a usage error", async () => {
    const data = corpus(PARTIAL, "p.conll");
    const meanField = trainingObjective("mean-field");
    const mf = await failure(
      trainOnCorpus(data, {
        preset: "ner-words",
        partialLabels: true,
        ...(meanField === undefined ? {} : { objective: meanField }),
      }),
    );
    expect(lagrangeErrorCode(mf)).toBe("usage");
    expect(mf.message).toMatch(/^p\.conll:5: the mean-field objective cannot train on partial/);
    const ap = await failure(
      trainOnCorpus(data, { preset: "ner-words", partialLabels: true, algorithm: "ap" }),
    );
    expect(lagrangeErrorCode(ap)).toBe("usage");
    expect(ap.message).toMatch(/averaged perceptron/);
  });
});
