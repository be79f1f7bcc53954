import { type Corpus, inferScheme, parseConll } from "@lagrange/datasets";
import { describe, expect, it } from "vitest";
import { modelPreset } from "../model-features.js";
import { sentenceAttributes } from "../model-input.js";
import { getTaskPreset } from "../preset-names.js";
import { openTrainer, stoppingText } from "../training/open-trainer.js";
import { schemeScorer, trainOnCorpus } from "../training.js";
import { MINED_PREFIX } from "./mined-lexicons.js";
import { HELD_OUT_RULE, type TaskPreset } from "./task-presets.js";
import type { TrainingFeatures } from "./training-features.js";
import { featuresOnPart, tuningCut } from "./tuning-fold.js";

function corpus(text: string, label: string): Corpus {
  const sentences = parseConll(text, { file: label, documentMarker: "-DOCSTART-" });
  return {
    label,
    format: "conll",
    sentences,
    scheme: inferScheme(sentences.flatMap((s) => (s.labels ? [s.labels] : []))),
  };
}

// Documents of varying length, each naming its own person; some labels flipped (noise), so that
// a held-out curve has something to overfit.
function documents(count: number): string {
  return Array.from({ length: count }, (_, d) => {
    const sentences = Array.from({ length: 1 + (d % 3) }, (_, k) =>
      [
        `Name${d} NNP ${(d * 7 + k) % 11 === 0 ? "O" : "B-PER"}`,
        `${k % 2 === 0 ? "visited" : "left"} VBD O`,
        `Town${d % 5} NNP ${(d + k) % 13 === 0 ? "B-PER" : "B-LOC"}`,
        ". . O",
      ].join("\n"),
    );
    return ["-DOCSTART- -X- O", "", ...sentences.flatMap((s) => [s, ""])].join("\n");
  }).join("\n");
}

const docOf = (c: Corpus) => c.sentences.map((s) => s.document);

describe("the tuning cut", () => {
  const c = corpus(documents(40), "d.conll");

  it("is deterministic, takes whole documents, and leaves none out", () => {
    const a = tuningCut(c, HELD_OUT_RULE)!;
    const b = tuningCut(c, HELD_OUT_RULE)!;
    expect(docOf(a.tuning)).toEqual(docOf(b.tuning));
    const tuningDocs = new Set(docOf(a.tuning));
    const restDocs = new Set(docOf(a.rest));
    // 40 documents, every tenth: 4, spread over the corpus.
    expect(tuningDocs.size).toBe(4);
    for (const d of tuningDocs) expect(restDocs.has(d)).toBe(false);
    expect(a.tuning.sentences.length + a.rest.sentences.length).toBe(c.sentences.length);
    expect(a.rest.label).toBe(c.label);
  });

  it("cuts blocks of 20 sentences where the data marks no documents, and none from tiny data", () => {
    const unmarked = { ...c, sentences: c.sentences.map(({ document: _, ...s }) => s) };
    const cut = tuningCut(unmarked, { ...HELD_OUT_RULE, minUnits: 2 })!;
    const blocks = new Set(
      cut.tuning.sentences.map((s) => Math.floor(unmarked.sentences.indexOf(s) / 20)),
    );
    expect([...blocks].every((b) => b % HELD_OUT_RULE.folds === 0)).toBe(true);
    expect(cut.tuning.sentences.length).toBe(20);
    expect(tuningCut(corpus(documents(5), "small.conll"), HELD_OUT_RULE)).toBeNull();
  });

  it("mines the rest's lexicons without the tuning fold's names", () => {
    const task: TaskPreset = { ...getTaskPreset("ner-en"), clusters: null, gazetteers: [] };
    const whole: TrainingFeatures = {
      preset: "ner",
      features: {
        base: "ner",
        columns: ["word", "pos"],
        lexicons: [{ name: `${MINED_PREFIX}PER`, entries: ["Name0", "Name1"] }],
      },
      jackknife: { fold: new Int32Array(c.sentences.length), specs: [] },
      task,
      notes: [],
    };
    const { rest, tuning } = tuningCut(c, HELD_OUT_RULE)!;
    const part = featuresOnPart(whole, rest, c.scheme);
    const mined = new Set(
      (part.features?.lexicons ?? []).flatMap((l) =>
        l.name.startsWith(MINED_PREFIX) ? l.entries : [],
      ),
    );
    expect(part.jackknife?.fold.length).toBe(rest.sentences.length);
    for (const s of tuning.sentences) expect(mined.has(s.tokens[0]!)).toBe(false);
    expect(mined.has(rest.sentences[0]!.tokens[0]!)).toBe(true);
  });
});

describe("a task preset's held-out stopping rule", () => {
  const c = corpus(documents(60), "d.conll");
  const rule = { ...HELD_OUT_RULE, every: 1, patience: 2, maxIterations: 40 };
  // Trained under the data's own scheme, so that the model's labels score as they are.
  const { internalScheme: _, ...nerEn } = getTaskPreset("ner-en");
  const task: TaskPreset = {
    ...nerEn,
    clusters: null,
    gazetteers: [],
    mined: false,
    heldOut: rule,
  };
  const features: TrainingFeatures = { preset: "ner-words", task, notes: [] };

  it("without refit, keeps the best iteration's weights, trained without the tuning fold", async () => {
    const kept = { ...features, task: { ...task, heldOut: { ...rule, refit: false } } };
    const trainer = openTrainer({ algorithm: "lbfgs" }, { features: kept });
    const trained = await trainer.train(c);
    const { rest, tuning } = tuningCut(c, rule)!;
    const best = trained.bestHeldOut!;
    expect(trained.tuning).toMatchObject({
      trainingSentences: rest.sentences.length,
      tuningSentences: tuning.sentences.length,
      metric: "F1",
    });
    expect(trained.model.settings.trainingSequences).toBe(rest.sentences.length);
    expect(trained.model.settings.stopping).toMatchObject({ bestIteration: best.iteration });
    // The model scores the best score on the tuning fold: its weights are the best iteration's.
    const extractor = modelPreset(trained.model);
    const score = schemeScorer(c.scheme)(
      tuning.sentences.map((s) => s.labels ?? []),
      tuning.sentences.map((s) => trained.model.tag(sentenceAttributes(extractor, s))),
    );
    expect(score.f1).toBeCloseTo(best.f1!, 12);
    // Training went on past the best iteration, and came back to its weights exactly.
    expect(trained.iterations).toBeGreaterThan(best.iteration);
    const { delta: _, ...chain } = trainer.options();
    const reference = await trainOnCorpus(rest, { ...chain, maxIterations: best.iteration });
    expect(Array.from(trained.model.weights)).toEqual(Array.from(reference.model.weights));
    expect(stoppingText(trained)).toMatch(
      trained.stopReason === "early-stopping"
        ? new RegExp(`^held-out F1 stopped improving at iteration ${best.iteration} \\(F1 `)
        : new RegExp(`best held-out F1 at iteration ${best.iteration}`),
    );
  });

  it("with refit, trains on all the data for the curve's best count", async () => {
    const trainer = openTrainer({ algorithm: "lbfgs" }, { features });
    const trained = await trainer.train(c);
    const best = trained.bestHeldOut!;
    expect(trained.tuning?.refitSentences).toBe(c.sentences.length);
    expect(trained.model.settings.trainingSequences).toBe(c.sentences.length);
    expect(trained.model.settings.stopping).toMatchObject({
      bestIteration: best.iteration,
      refit: c.sentences.length,
    });
    const reference = await trainOnCorpus(c, {
      ...trainer.options(),
      maxIterations: best.iteration,
      delta: 0,
    });
    expect(Array.from(trained.model.weights)).toEqual(Array.from(reference.model.weights));
    expect(stoppingText(trained)).toMatch(
      new RegExp(
        `then trained on all ${c.sentences.length} sentences for ${best.iteration} iterations\\)$`,
      ),
    );
  });

  it("gives way to a cap, a delta or dev data the caller names, and to the perceptron", () => {
    const heldOut = (spec: Parameters<typeof openTrainer>[0], dev?: Corpus) =>
      openTrainer(spec as { algorithm: "lbfgs" }, { features, ...(dev ? { dev } : {}) }).heldOut;
    expect(heldOut({ algorithm: "lbfgs" })).toBe(rule);
    expect(heldOut({ algorithm: "owlqn", c1: 0.1 })).toBe(rule);
    expect(heldOut({ algorithm: "lbfgs", maxIterations: 50 })).toBeUndefined();
    expect(heldOut({ algorithm: "lbfgs", delta: 1e-4 })).toBeUndefined();
    expect(heldOut({ algorithm: "lbfgs" }, c)).toBeUndefined();
    expect(heldOut({ algorithm: "ap" })).toBeUndefined();
  });
});
