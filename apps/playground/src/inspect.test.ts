import { readFileSync } from "node:fs";
import { loadModelFromBytes } from "@lagrange/chain-crf";
import {
  COUNT_FAMILIES,
  constraintInstantiator,
  parseConstraintsFile,
  type WeightedTemplate,
} from "@lagrange/constraint-templates";
import { constraintViolation, DecoderRegistry, viterbiDefinition } from "@lagrange/core";
import {
  learnConstraints,
  modelDecodingConstraints,
  modelPreset,
  prepareCitationExperiment,
  sentenceAttributes,
  standardDecoders,
} from "@lagrange/recipes";
import { beforeAll, describe, expect, it } from "vitest";
import { EXAMPLES } from "./examples.js";
import { CitationInspector, citationTokens, constraintRules, decoderChoices } from "./inspect.js";

const CITATION =
  "Anzaroot, S., Passos, A., Belanger, D., and McCallum, A. (2014). Learning soft linear constraints with application to citation field extraction. In Proceedings of ACL (pp. 593-602).";

describe("CitationInspector (a small citation CRF on generated citations)", () => {
  let experiment: Awaited<ReturnType<typeof prepareCitationExperiment>>;
  let constraints: readonly WeightedTemplate[];
  const registry = standardDecoders();

  beforeAll(async () => {
    experiment = await prepareCitationExperiment({ quick: true, crfIterations: 12 });
    const learned = await learnConstraints(experiment.base.model, experiment.learn, {
      families: COUNT_FAMILIES,
      threshold: 2.75,
      countUnit: "segment",
      epochs: 2,
    });
    constraints = learned.entries;
  }, 120_000);

  it("returns Viterbi's labels (the model's own Viterbi under its mask), nested spans and marginals", () => {
    const model = experiment.base.model;
    const inspector = new CitationInspector({ model, registry, decoder: "soft-dd", constraints });
    const result = inspector.inspect(CITATION);
    const tokens = citationTokens(CITATION);
    expect(result.tokens).toEqual(tokens);

    const masked = model.withConstraints(modelDecodingConstraints(model));
    const attributes = sentenceAttributes(modelPreset(model), { tokens, columns: [tokens] });
    expect(result.viterbi.labels).toEqual(model.labels.decode(masked.tagIds(attributes)));

    // Every token inside a field is covered by a top-level span; children nest in their parent.
    for (const { labels, spans } of [result.viterbi, result.constrained]) {
      labels.forEach((label, i) => {
        const covered = spans.some((s) => s.level === 0 && s.start <= i && i < s.end);
        expect(covered).toBe(label !== "O");
      });
      for (const child of spans.filter((s) => s.level > 0)) {
        const parent = spans.find(
          (s) =>
            s.level === child.level - 1 &&
            child.type.startsWith(`${s.type}/`) &&
            s.start <= child.start &&
            child.end <= s.end,
        );
        expect(parent).toBeDefined();
      }
    }

    expect(result.marginals).toHaveLength(tokens.length);
    expect(result.labelNames).toEqual(model.labels.names());
    for (const row of result.marginals) {
      expect(row).toHaveLength(model.numLabels);
      expect(row.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 9);
      for (const p of row) expect(p).toBeGreaterThanOrEqual(0);
    }
  });

  it("traces the dual and primal once per iteration, and explains the constraints that fired", () => {
    const model = experiment.base.model;
    const L = model.numLabels;
    const inspector = new CitationInspector({ model, registry, decoder: "soft-dd", constraints });
    for (const sentence of experiment.testSentences.slice(0, 25)) {
      const result = inspector.inspect(sentence.tokens);
      expect(result.traced).toBe(true);
      expect(result.objective).toHaveLength(result.iterations);
      result.objective.forEach((point, k) => {
        expect(point.iteration).toBe(k + 1);
        expect(point.dual).toBeGreaterThanOrEqual(point.primal - 1e-6 * Math.abs(point.dual));
      });
      expect(result.constraintCount).toBeGreaterThan(0);
      // Independently: the constraints instantiated from the same templates, scored on both
      // labellings; each one whose violation changed must be reported with the same numbers.
      const instance = { n: result.tokens.length, L, tokens: result.tokens };
      const instantiated = constraintInstantiator(constraints)(instance);
      expect(instantiated).toHaveLength(result.constraintCount);
      const viterbi = model.labels.encode(result.viterbi.labels);
      const constrained = model.labels.encode(result.constrained.labels);
      for (const constraint of instantiated) {
        const before = constraintViolation(constraint, viterbi, L);
        const after = constraintViolation(constraint, constrained, L);
        if (before === after) continue;
        const reported = result.fired.find((f) => f.name === constraint.name);
        expect(reported).toMatchObject({
          violationBefore: before,
          violationAfter: after,
          penalty: constraint.penalty ?? null,
        });
      }
      for (const fired of result.fired) {
        expect(fired.sentence).toContain(fired.name);
        expect(fired.violationBefore !== fired.violationAfter || fired.multiplier > 0).toBe(true);
      }
    }
  });

  it("lists every registered decoder with whether it can decode here, and every usable one decodes", async () => {
    const model = experiment.base.model;
    const without = await decoderChoices(registry, { constraints: false });
    expect(without.map((c) => c.name)).toEqual(registry.decoders().map((d) => d.name));
    const byName = new Map(without.map((c) => [c.name, c]));
    expect(byName.get("viterbi")?.usable).toBe(true);
    expect(byName.get("soft-dd")?.usable).toBe(false);
    expect(byName.get("naive-dd")?.note).toMatch(/general CRF/);
    expect(byName.get("exact")?.usable).toBe(false);
    expect(byName.get("exact")?.note).toMatch(/give it learned constraints/);
    expect(byName.get("exact")?.note).not.toMatch(/general CRF/);

    const choices = await decoderChoices(registry, { constraints: true });
    expect(choices.find((c) => c.name === "bcrf")?.ignoresConstraints).toBe(true);
    for (const choice of choices.filter((c) => c.usable)) {
      const inspector = new CitationInspector({
        model,
        registry,
        decoder: choice.name,
        constraints,
      });
      const result = inspector.inspect(CITATION);
      expect(result.decoder).toBe(choice.name);
      expect(result.constrained.labels).toHaveLength(result.tokens.length);
      expect(result.decodeMs).toBeGreaterThanOrEqual(0);
      if (choice.ignoresConstraints) expect(result.constraintCount).toBe(0);
      if (result.traced) expect(result.objective).toHaveLength(result.iterations);
      else expect(result.objective).toHaveLength(1);
      for (const point of result.objective) expect(Number.isFinite(point.dual)).toBe(true);
    }
  }, 60_000);

  it("offers the master's step (subgradient, AD3, auto) to the dual-decomposition decoders only", async () => {
    const choices = await decoderChoices(registry, { constraints: true });
    const steps = new Map(choices.map((c) => [c.name, c.steps]));
    for (const dd of ["soft-dd", "hard-dd", "two-slave", "naive-dd"]) {
      expect(steps.get(dd)).toEqual(["subgradient", "ad3", "auto"]);
    }
    for (const other of ["viterbi", "exact", "two-phase", "bcrf", "mean-field", "greedy"]) {
      expect(steps.get(other)).toEqual([]);
    }
    const model = experiment.base.model;
    expect(new CitationInspector({ model, registry, decoder: "soft-dd", constraints }).step).toBe(
      "auto",
    );
    expect(new CitationInspector({ model, registry, decoder: "viterbi" }).step).toBeNull();
    // As in `lagrange tag`: a decoder without the option refuses it, naming itself.
    expect(
      () =>
        new CitationInspector({
          model,
          registry,
          decoder: "viterbi",
          decoderOptions: { step: "ad3" },
        }),
    ).toThrow('decoder "viterbi" has no option "step"');
    expect(
      () =>
        new CitationInspector({
          model,
          registry,
          decoder: "soft-dd",
          decoderOptions: { step: "newton" },
        }),
    ).toThrow("expected one of subgradient, ad3");
  });

  it("decodes with the AD3 step: a bound, a certificate when the gap closes, the optimum subgradient certifies", () => {
    const model = experiment.base.model;
    const inspectors = (step: string) =>
      new CitationInspector({
        model,
        registry,
        decoder: "soft-dd",
        constraints,
        decoderOptions: { step },
      });
    const ad3 = inspectors("ad3");
    const subgradient = inspectors("subgradient");
    let ad3Iterations = 0;
    let subgradientIterations = 0;
    for (const sentence of experiment.testSentences.slice(0, 25)) {
      const a = ad3.inspect(sentence.tokens);
      const s = subgradient.inspect(sentence.tokens);
      expect(a.step).toBe("ad3");
      expect(s.step).toBe("subgradient");
      ad3Iterations += a.iterations;
      subgradientIterations += s.iterations;
      expect(a.traced).toBe(true);
      expect(a.objective).toHaveLength(a.iterations);
      const dual = a.dual!;
      const slack = 1e-6 * Math.max(1, Math.abs(dual));
      expect(dual).toBeGreaterThanOrEqual(a.primal - slack);
      expect(a.gap).toBeCloseTo(dual - a.primal, 6);
      if (a.certified) expect(a.gap).toBeLessThanOrEqual(slack);
      // Both certified: the same optimum of Soft-DD's objective.
      if (a.certified && s.certified) expect(a.primal).toBeCloseTo(s.primal, 4);
    }
    // The step reached the master: the two runs took different paths.
    expect(ad3Iterations).not.toBe(subgradientIterations);
  });

  it("marks a decoder whose set-up fails as unusable, with the failure's message", async () => {
    const broken = new DecoderRegistry().addDecoder(viterbiDefinition).addDecoder({
      name: "needs-wasm",
      description: "a decoder whose set-up cannot run here",
      accepts: { constraints: false, slaves: false },
      prepare: () => Promise.reject(new Error("no WebAssembly here")),
      create: viterbiDefinition.create,
    });
    const choices = await decoderChoices(broken, { constraints: false });
    expect(choices.map((c) => [c.name, c.usable])).toEqual([
      ["viterbi", true],
      ["needs-wasm", false],
    ]);
    expect(choices[1]!.note).toContain("no WebAssembly here");
  });
});

describe("the page's first example with the shipped model and constraints", () => {
  const read = (name: string) => readFileSync(new URL(`../public/${name}`, import.meta.url));
  const model = loadModelFromBytes(new Uint8Array(read("citation.model")), "citation.model");
  const entries = parseConstraintsFile(read("citation.constraints.json").toString("utf8"), {
    source: "citation.constraints.json",
    expectedLabels: model.labels.names(),
  }).entries;
  const registry = standardDecoders();

  it("is corrected by Soft-DD: Viterbi merges two authors into one person, Soft-DD splits them", () => {
    const inspector = new CitationInspector({
      model,
      registry,
      decoder: "soft-dd",
      constraints: entries,
    });
    const result = inspector.inspect(EXAMPLES[0]!);
    const persons = (labels: readonly string[]) =>
      labels.filter((l) => l.endsWith("B-person/B-person-first")).length;
    // Lafferty, McCallum and Pereira: three people.
    expect(persons(result.viterbi.labels)).toBe(2);
    expect(persons(result.constrained.labels)).toBe(3);
    const changed = result.tokens.flatMap((t, i) =>
      result.viterbi.labels[i] === result.constrained.labels[i]
        ? []
        : [[t, result.constrained.labels[i]]],
    );
    expect(changed).toEqual([["A.", "I-authors/B-person/B-person-first"]]);
    expect(result.certified).toBe(true);
    expect(result.fired.some((f) => f.violationBefore > 0 && f.violationAfter === 0)).toBe(true);
  });

  it("counts the constraints once: the sources line's number is the one each citation decodes with", () => {
    const rules = constraintRules(entries);
    expect(rules.entries).toBe(entries.length);
    expect(rules.zeroPenalty).toBe(entries.filter((e) => e.penalty === 0).length);
    const inspector = new CitationInspector({
      model,
      registry,
      decoder: "soft-dd",
      constraints: entries,
    });
    for (const text of EXAMPLES) {
      const result = inspector.inspect(text);
      expect(result.rules).toBe(rules.decoded);
      // The shipped count families instantiate one constraint per rule.
      expect(result.constraintCount).toBe(rules.decoded);
    }
    const viterbi = new CitationInspector({
      model,
      registry,
      decoder: "viterbi",
      constraints: entries,
    });
    expect(viterbi.inspect(EXAMPLES[0]!).rules).toBe(0);
  });
});
