import { LabelSet, seededRandom } from "@lagrange/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { modelFromTraining } from "../crf-model.js";
import { AttributeSequenceBuilder } from "../features/builder.js";
import { CHUNKING_TEMPLATES } from "../features/chunking.js";
import { contextFeatures } from "../features/context.js";
import { type TokenFeatures, withTokenFeatures } from "../features/define-preset.js";
import { FieldTemplateSet } from "../features/field-templates.js";
import { nerWordsPreset } from "../features/ner.js";
import { ADD_NUMBERED, MAX_SPACES_PER_LIST, SymbolSpace, symbolsOf } from "../features/symbols.js";
import { parseTemplate } from "../features/template.js";
import type { AttributeList, AttributeSequence, Rows } from "../features/types.js";
import { clusterFeatures, lexiconFeatures } from "../features/word-resources.js";
import { prepareTrainingData } from "../training-data.js";
import { lookupNumbered, numberedNames } from "./symbol-ids.js";

/** The same attributes without the extractor's numbers (a spread drops them): the reference path. */
function plain(a: AttributeSequence): AttributeSequence {
  const copy = (list: AttributeList) => ({ ...list, names: [...list.names] });
  return { ...copy(a), length: a.length, transition: a.transition && copy(a.transition) };
}

/** Field templates with a tiny name cache (so its numbering starts over, mid-sentence too). */
function fieldExtractor(cacheSize: number): (rows: Rows) => AttributeSequence {
  const templates = new FieldTemplateSet(CHUNKING_TEMPLATES, ["w", "pos"], cacheSize);
  const builder = new AttributeSequenceBuilder();
  return (rows) => {
    const n = rows.length;
    const values = [rows.map((row) => row[0]!), rows.map((row) => row[1]!)];
    builder.begin(n);
    for (let t = 0; t < n; t++) {
      templates.apply(values, n, t, builder);
      // A name without a number among numbered ones, as presets add __BOS__.
      if (t === 0) builder.state(t, "__BOS__", 1);
    }
    return builder.finish();
  };
}

const crfpp = () =>
  parseTemplate("U00:%x[0,0]\nU01:%x[-1,0]/%x[0,1]\nU02:fixed\nB00:%x[-1,1]/%x[0,1]\nB\n").extract;

/** Sentences over a small vocabulary, so that names repeat and held-out ones are often unknown. */
const corpus = fc.array(
  fc.array(
    fc.tuple(
      fc.constantFrom("a", "b", "c", "d", "e", "f:g"),
      fc.constantFrom("NN", "VB", "DT"),
      fc.constantFrom("B-NP", "I-NP", "O"),
    ),
    { minLength: 1, maxLength: 7 },
  ),
  { minLength: 2, maxLength: 8 },
);

describe("attribute ids through the extractor's numbers", () => {
  it("tags, scores and compiles exactly as looking every name up", () => {
    fc.assert(
      fc.property(
        corpus,
        fc.constantFrom(3, 7, 50, 1_000_000),
        fc.boolean(),
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        (sentences, cacheSize, useCrfpp, seed) => {
          const extract = useCrfpp ? crfpp() : fieldExtractor(cacheSize);
          const rows = sentences.map((s) => s.map(([w, pos]) => [w, pos]));
          const half = Math.ceil(sentences.length / 2);
          const training = sentences.slice(0, half).map((s, i) => ({
            attributes: extract(rows[i]!),
            labels: s.map(([, , y]) => y),
          }));
          for (const { attributes } of training) {
            const run = symbolsOf(attributes);
            if (run === undefined) continue;
            expect(Object.isFrozen(attributes.names)).toBe(true);
            attributes.names.forEach((name, k) => {
              const symbol = run.symbols[k]!;
              if (symbol >= 0) expect(run.spaces[run.spaceOf[k]!]!.names[symbol]).toBe(name);
            });
          }
          const data = prepareTrainingData(training, { shared: false });
          const reference = prepareTrainingData(
            training.map((s) => ({ ...s, attributes: plain(s.attributes) })),
            { shared: false },
          );
          expect(data.dataset).toEqual(reference.dataset);
          const rnd = seededRandom(seed);
          const weights = Float64Array.from({ length: data.layout.numWeights }, () => rnd() - 0.5);
          const model = modelFromTraining(data, weights);
          // Every sentence twice (numbers seen before and not), then held-out ones with unknown names.
          const tagged = [...rows, ...rows].map((r) => extract(r));
          // With a cache that never starts over, every list goes the numbered way.
          if (useCrfpp || cacheSize > 1000) {
            expect(tagged.every((a) => symbolsOf(a) !== undefined)).toBe(true);
          }
          for (const attributes of tagged) {
            const other = plain(attributes);
            expect(model.tag(attributes)).toEqual(model.tag(other));
            expect(model.chainScores(attributes)).toEqual(model.chainScores(other));
          }
          expect(model.compile(tagged.map((attributes) => ({ attributes })))).toEqual(
            model.compile(tagged.map((attributes) => ({ attributes: plain(attributes) }))),
          );
        },
      ),
      { numRuns: 150 },
    );
  });

  it("numbers every resource's names too (several spaces in one list), scoring as by name", () => {
    // The ner preset's templates and windows, clusters, lexicons and document context: each
    // numbers its names in its own space, all mixed in one token's list.
    const preset = withTokenFeatures(nerWordsPreset(), [
      clusterFeatures({ name: "c", words: ["a", "b", "New"], paths: ["0", "01", "0110"] }),
      lexiconFeatures([{ name: "city", entries: ["New York", "b"] }]),
      contextFeatures(1),
    ] as TokenFeatures[]);
    const mixed = symbolsOf(
      preset.extract([
        ["New", "-1a +1b", "cu"],
        ["York", "_", "_"],
      ]),
    );
    // Templates, windows, clusters, lexicons, context.
    expect(mixed?.spaces.length).toBe(5);
    const words = fc.constantFrom("a", "b", "New", "York", "x:y");
    const context = fc.constantFrom("_", "-1a +1b", "case=cu");
    const sentences = fc.array(
      fc.array(fc.tuple(words, context, fc.constantFrom("_", "cu"), fc.constantFrom("O", "LOC")), {
        minLength: 1,
        maxLength: 6,
      }),
      { minLength: 2, maxLength: 6 },
    );
    fc.assert(
      fc.property(sentences, fc.integer({ min: 0, max: 2 ** 31 - 1 }), (data, seed) => {
        const rows = data.map((s) => s.map(([w, ctx, casing]) => [w, ctx, casing]));
        const training = data.map((s, i) => ({
          attributes: preset.extract(rows[i]!),
          labels: s.map(([, , , y]) => y),
        }));
        const prepared = prepareTrainingData(training, { shared: false });
        const rnd = seededRandom(seed);
        const weights = Float64Array.from(
          { length: prepared.layout.numWeights },
          () => rnd() - 0.5,
        );
        const model = modelFromTraining(prepared, weights);
        for (const r of rows) {
          const attributes = preset.extract(r);
          const run = symbolsOf(attributes)!;
          attributes.names.forEach((name, k) => {
            const symbol = run.symbols[k]!;
            // Only the sentence ends go by name.
            if (symbol < 0) expect(["__BOS__", "__EOS__"]).toContain(name);
            else expect(run.spaces[run.spaceOf[k]!]!.names[symbol]).toBe(name);
          });
          const other = plain(attributes);
          expect(model.tag(attributes)).toEqual(model.tag(other));
          expect(model.chainScores(attributes)).toEqual(model.chainScores(other));
        }
      }),
      { numRuns: 60 },
    );
  });

  it("goes by name past the spaces one list may mix", () => {
    const builder = new AttributeSequenceBuilder();
    builder.begin(1);
    const count = MAX_SPACES_PER_LIST + 10;
    for (let i = 0; i < count; i++) {
      const space = new SymbolSpace();
      space.add("unused");
      builder[ADD_NUMBERED](false, 0, `n${i}`, space.add(`n${i}`), space);
    }
    const attributes = builder.finish();
    const run = symbolsOf(attributes)!;
    expect(run.spaces.length).toBe(MAX_SPACES_PER_LIST);
    expect(Array.from(run.symbols.subarray(MAX_SPACES_PER_LIST))).toEqual(Array(10).fill(-1));
    const dict = LabelSet.from(["n3", `n${count - 1}`, "n0"]).freeze();
    const numbered = numberedNames(attributes, dict);
    const ids = attributes.names.map((_, k) => lookupNumbered(dict, attributes.names, k, numbered));
    expect(ids).toEqual(attributes.names.map((name) => dict.lookup(name)));
  });

  it("keeps no table for a dictionary that may still grow", () => {
    const attributes = fieldExtractor(100)([
      ["a", "NN"],
      ["b", "VB"],
    ]);
    expect(symbolsOf(attributes)).toBeDefined();
    const open = LabelSet.from(attributes.names);
    expect(numberedNames(attributes, open)).toBeNull();
    expect(numberedNames(attributes, open.freeze())).not.toBeNull();
    expect(numberedNames(plain(attributes), open)).toBeNull();
  });
});
