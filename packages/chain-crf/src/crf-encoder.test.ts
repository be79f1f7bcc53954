import { LabelSet, seededRandom } from "@lagrange/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CrfEncoder, restoreEncoder } from "./crf-encoder.js";
import type { AttributeSequence } from "./features/types.js";
import { compileDataset } from "./model/dataset.js";
import { buildAttributeDictionary } from "./model/dictionary.js";
import { buildFeatureLayout } from "./model/layout.js";
import { type RandomCorpusOptions, randomCorpus } from "./testing/random-corpus.js";

function setup(seed: number, corpus: RandomCorpusOptions, dense: boolean, startEnd: boolean) {
  const sequences = randomCorpus(seed, corpus);
  const attributes = buildAttributeDictionary(sequences.map((s) => s.attributes));
  const transitionAttributes = buildAttributeDictionary(
    sequences.map((s) => s.attributes.transition),
  );
  const labels = new LabelSet();
  for (let t = 0; t < (corpus.labels ?? 3); t++) labels.intern(`L${t}`);
  const dataset = compileDataset(sequences, {
    attributes,
    transitionAttributes,
    labels,
    internLabels: true,
    shared: (seed & 1) === 0,
  });
  const layout = buildFeatureLayout(
    dataset,
    attributes.size,
    labels.size,
    transitionAttributes.size,
    { dense, startEnd },
  );
  const encoder = new CrfEncoder(dataset, layout);
  const rnd = seededRandom(seed + 17);
  const weights = Float64Array.from({ length: layout.numWeights }, () => rnd() * 2 - 1);
  return { encoder, weights, L: labels.size };
}

/** w · counts(y), the score of a labelling by walking its features (independent of the kernels). */
function pathScore(encoder: CrfEncoder, i: number, y: Int32Array, w: Float64Array): number {
  const counts = new Float64Array(encoder.numWeights);
  encoder.addFeatureCounts(i, y, 1, counts);
  let s = 0;
  for (let k = 0; k < counts.length; k++) s += counts[k]! * w[k]!;
  return s;
}

function allLabellings(n: number, L: number): Int32Array[] {
  const out: Int32Array[] = [];
  for (let code = 0; code < L ** n; code++) {
    const y = new Int32Array(n);
    let c = code;
    for (let i = n - 1; i >= 0; i--) {
      y[i] = c % L;
      c = Math.floor(c / L);
    }
    out.push(y);
  }
  return out;
}

function lse(xs: number[]): number {
  const m = Math.max(...xs);
  if (m === Number.NEGATIVE_INFINITY) return m;
  return m + Math.log(xs.reduce((s, x) => s + Math.exp(x - m), 0));
}

const configs = fc.record({
  seed: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
  dense: fc.boolean(),
  startEnd: fc.boolean(),
  values: fc.boolean(),
  transitions: fc.boolean(),
  partial: fc.boolean(),
});

describe("CrfEncoder", () => {
  it("loss = −log p(gold) and decode = argmax, by brute force over feature-walk scores", () => {
    fc.assert(
      fc.property(configs, (c) => {
        const { encoder, weights, L } = setup(
          c.seed,
          {
            values: c.values,
            transitions: c.transitions,
            unlabelled: c.partial ? 0.3 : 0,
          },
          c.dense,
          c.startEnd,
        );
        const out = new Int32Array(8);
        for (let i = 0; i < encoder.numInstances; i++) {
          const n = encoder.instanceLength(i);
          const gold = encoder.goldLabels(i);
          const ys = allLabellings(n, L);
          const scores = ys.map((y) => pathScore(encoder, i, y, weights));
          const consistent = scores.filter((_, k) =>
            ys[k]!.every((t, j) => gold[j]! < 0 || gold[j] === t),
          );
          const expected = lse(scores) - lse(consistent);
          const loss = encoder.instanceLoss(i, weights, null);
          expect(loss).toBeCloseTo(expected, 9);
          const best = encoder.decode(i, weights, out);
          expect(best).toBeCloseTo(Math.max(...scores), 9);
          expect(pathScore(encoder, i, out.subarray(0, n), weights)).toBeCloseTo(best, 9);
        }
      }),
      { numRuns: 150 },
    );
  });

  it("gradient matches central finite differences", () => {
    fc.assert(
      fc.property(configs, (c) => {
        const { encoder, weights } = setup(
          c.seed,
          {
            sequences: 2,
            values: c.values,
            transitions: c.transitions,
            unlabelled: c.partial ? 0.3 : 0,
          },
          c.dense,
          c.startEnd,
        );
        const total = (w: Float64Array, grad: Float64Array | null, scale: number) => {
          let s = 0;
          for (let i = 0; i < encoder.numInstances; i++)
            s += encoder.instanceLoss(i, w, grad, scale);
          return s;
        };
        const grad = new Float64Array(encoder.numWeights);
        total(weights, grad, 0.5);
        const h = 1e-5;
        const w = weights.slice();
        for (let k = 0; k < w.length; k++) {
          w[k] = weights[k]! + h;
          const up = total(w, null, 1);
          w[k] = weights[k]! - h;
          const down = total(w, null, 1);
          w[k] = weights[k]!;
          expect(grad[k]).toBeCloseTo((0.5 * (up - down)) / (2 * h), 5);
        }
      }),
      { numRuns: 100 },
    );
  });

  it("instanceLossScaled equals the loss under scaled weights, also updating weights in place", () => {
    fc.assert(
      fc.property(configs, fc.double({ min: 0.1, max: 3, noNaN: true }), (c, factor) => {
        const { encoder, weights } = setup(
          c.seed,
          { values: c.values, transitions: c.transitions, unlabelled: c.partial ? 0.3 : 0 },
          c.dense,
          c.startEnd,
        );
        const scaled = weights.map((w) => w * factor);
        for (let i = 0; i < encoder.numInstances; i++) {
          const grad = new Float64Array(encoder.numWeights);
          const expected = encoder.instanceLoss(i, scaled, grad, -0.1);
          const sink = new Float64Array(encoder.numWeights);
          expect(encoder.instanceLossScaled(i, weights, factor, sink, -0.1)).toBeCloseTo(
            expected,
            9,
          );
          const inPlace = weights.slice();
          encoder.instanceLossScaled(i, inPlace, factor, inPlace, -0.1);
          for (let k = 0; k < grad.length; k++) {
            expect(sink[k]).toBeCloseTo(grad[k]!, 9);
            expect(inPlace[k]).toBeCloseTo(weights[k]! + grad[k]!, 9);
          }
        }
      }),
      { numRuns: 60 },
    );
  });

  it("rangeLoss (batch, WebAssembly sweeps) = Σ instanceLoss, value and gradient", () => {
    fc.assert(
      fc.property(configs, fc.double({ min: 0.2, max: 2, noNaN: true }), (c, scale) => {
        const { encoder, weights } = setup(
          c.seed,
          {
            sequences: 6,
            values: c.values,
            transitions: c.transitions,
            unlabelled: c.partial ? 0.2 : 0,
          },
          c.dense,
          c.startEnd,
        );
        const begin = c.seed % 3;
        const end = encoder.numInstances - (c.seed % 2);
        const expected = new Float64Array(encoder.numWeights).fill(0.5);
        let loss = 0;
        for (let i = begin; i < end; i++) loss += encoder.instanceLoss(i, weights, expected, scale);
        const batch = new Float64Array(encoder.numWeights).fill(0.5);
        expect(encoder.rangeLoss(begin, end, weights, batch, scale)).toBeCloseTo(loss, 9);
        for (let k = 0; k < batch.length; k++) expect(batch[k]).toBeCloseTo(expected[k]!, 9);
        // A second pass over the same workspace (dense rows cleared in between) agrees exactly.
        const again = new Float64Array(encoder.numWeights).fill(0.5);
        encoder.rangeLoss(begin, end, weights, again, scale);
        expect(Array.from(again)).toEqual(Array.from(batch));
      }),
      { numRuns: 80 },
    );
  });

  it("rangeLossPass paused between sentences = rangeLoss, value and gradient bit for bit", () => {
    fc.assert(
      fc.property(configs, fc.integer({ min: 1, max: 4 }), (c, every) => {
        const { encoder, weights } = setup(
          c.seed,
          {
            sequences: 9,
            values: c.values,
            transitions: c.transitions,
            unlabelled: c.partial ? 0.2 : 0,
          },
          c.dense,
          c.startEnd,
        );
        const begin = c.seed % 3;
        const end = encoder.numInstances - (c.seed % 2);
        const batch = new Float64Array(encoder.numWeights).fill(0.5);
        const loss = encoder.rangeLoss(begin, end, weights, batch, 1.5);
        const paused = new Float64Array(encoder.numWeights).fill(0.5);
        const pass = encoder.rangeLossPass(begin, end, weights, paused, 1.5);
        // Stops after every `every` sentences; the gradient is added only when the pass is done.
        let calls = 0;
        let runs = 1;
        while (!pass.run(() => ++calls % every === 0)) runs++;
        expect(runs).toBeGreaterThanOrEqual(Math.ceil((end - begin) / every));
        expect(pass.loss).toBe(loss);
        expect(Array.from(paused)).toEqual(Array.from(batch));
        // Done: running it again adds nothing.
        expect(pass.run(null)).toBe(true);
        expect(Array.from(paused)).toEqual(Array.from(batch));
      }),
      { numRuns: 60 },
    );
  });

  it("a restored encoder over a sub-range agrees with the original", () => {
    const { encoder, weights } = setup(5, { sequences: 6, transitions: true }, false, true);
    const descriptor = structuredClone(encoder.descriptor());
    const part = restoreEncoder(descriptor, { begin: 2, end: 5 });
    expect(part.numInstances).toBe(3);
    const g1 = new Float64Array(encoder.numWeights);
    const g2 = new Float64Array(encoder.numWeights);
    for (let i = 0; i < 3; i++) {
      expect(part.instanceLoss(i, weights, g2)).toBe(encoder.instanceLoss(i + 2, weights, g1));
      expect(Array.from(part.goldLabels(i))).toEqual(Array.from(encoder.goldLabels(i + 2)));
    }
    expect(Array.from(g2)).toEqual(Array.from(g1));
    // The batch path of a shard copies only the shard's tokens.
    const plain = setup(6, { sequences: 8 }, false, true);
    const shard = restoreEncoder(plain.encoder.descriptor(), { begin: 3, end: 7 });
    const expected = new Float64Array(plain.encoder.numWeights);
    let loss = 0;
    for (let i = 4; i < 7; i++) loss += plain.encoder.instanceLoss(i, plain.weights, expected);
    const batch = new Float64Array(plain.encoder.numWeights);
    expect(shard.rangeLoss(1, 4, plain.weights, batch)).toBeCloseTo(loss, 9);
    for (let k = 0; k < batch.length; k++) expect(batch[k]).toBeCloseTo(expected[k]!, 9);
    expect(encoder.descriptor().dataset.labels.buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(() => restoreEncoder(descriptor, { begin: 4, end: 9 })).toThrow(/not inside/);
  });
});

/** A random mask that every gold labelling of the encoder satisfies (plus random extra pairs). */
function maskAdmittingGold(encoder: CrfEncoder, L: number, seed: number) {
  const rnd = seededRandom(seed ^ 0x2545f491);
  const allowed = Uint8Array.from({ length: L * L }, () => (rnd() < 0.3 ? 1 : 0));
  const allowedStart = Uint8Array.from({ length: L }, () => (rnd() < 0.4 ? 1 : 0));
  const allowedEnd = Uint8Array.from({ length: L }, () => (rnd() < 0.4 ? 1 : 0));
  for (let i = 0; i < encoder.numInstances; i++) {
    const y = encoder.goldLabels(i);
    allowedStart[y[0]!] = 1;
    allowedEnd[y[y.length - 1]!] = 1;
    for (let j = 1; j < y.length; j++) allowed[y[j - 1]! * L + y[j]!] = 1;
  }
  return { allowed, allowedStart, allowedEnd };
}

function isValid(
  y: Int32Array,
  L: number,
  c: { allowed: Uint8Array; allowedStart: Uint8Array; allowedEnd: Uint8Array },
): boolean {
  if (c.allowedStart[y[0]!] === 0 || c.allowedEnd[y[y.length - 1]!] === 0) return false;
  for (let j = 1; j < y.length; j++) if (c.allowed[y[j - 1]! * L + y[j]!] === 0) return false;
  return true;
}

describe("CrfEncoder, constrained training", () => {
  const fullConfigs = fc.record({
    seed: fc.integer({ min: 0, max: 2 ** 31 - 1 }),
    dense: fc.boolean(),
    startEnd: fc.boolean(),
    values: fc.boolean(),
    transitions: fc.boolean(),
  });

  it("loss = log Σ_valid exp(score) − score(gold), decode = best valid labelling, rangeLoss = Σ instanceLoss, by brute force", () => {
    fc.assert(
      fc.property(fullConfigs, (c) => {
        const { encoder, weights, L } = setup(
          c.seed,
          { sequences: 5, values: c.values, transitions: c.transitions, labels: 4 },
          c.dense,
          c.startEnd,
        );
        const mask = maskAdmittingGold(encoder, L, c.seed);
        encoder.setConstraints(mask);
        expect(encoder.constrained).toBe(true);
        const out = new Int32Array(8);
        let total = 0;
        for (let i = 0; i < encoder.numInstances; i++) {
          const n = encoder.instanceLength(i);
          const gold = encoder.goldLabels(i);
          const valid = allLabellings(n, L).filter((y) => isValid(y, L, mask));
          const scores = valid.map((y) => pathScore(encoder, i, y, weights));
          const loss = encoder.instanceLoss(i, weights, null);
          expect(loss).toBeCloseTo(lse(scores) - pathScore(encoder, i, gold, weights), 9);
          total += loss;
          const best = encoder.decode(i, weights, out);
          expect(best).toBeCloseTo(Math.max(...scores), 9);
          expect(isValid(out.subarray(0, n), L, mask)).toBe(true);
        }
        const expected = new Float64Array(encoder.numWeights);
        for (let i = 0; i < encoder.numInstances; i++) encoder.instanceLoss(i, weights, expected);
        const batch = new Float64Array(encoder.numWeights);
        expect(encoder.rangeLoss(0, encoder.numInstances, weights, batch)).toBeCloseTo(total, 9);
        for (let k = 0; k < batch.length; k++) expect(batch[k]).toBeCloseTo(expected[k]!, 9);
        // Workers restore the mask from the descriptor.
        const restored = restoreEncoder(structuredClone(encoder.descriptor()));
        expect(restored.instanceLoss(0, weights, null)).toBe(
          encoder.instanceLoss(0, weights, null),
        );
      }),
      { numRuns: 100 },
    );
  });

  it("gradient under the mask matches central finite differences; forbidden transitions get none", () => {
    fc.assert(
      fc.property(fullConfigs, (c) => {
        const { encoder, weights, L } = setup(
          c.seed,
          { sequences: 3, values: c.values, transitions: c.transitions },
          c.dense,
          c.startEnd,
        );
        const mask = maskAdmittingGold(encoder, L, c.seed);
        encoder.setConstraints(mask);
        const total = (w: Float64Array, grad: Float64Array | null) => {
          let s = 0;
          for (let i = 0; i < encoder.numInstances; i++) s += encoder.instanceLoss(i, w, grad, 1);
          return s;
        };
        const grad = new Float64Array(encoder.numWeights);
        total(weights, grad);
        const h = 1e-5;
        const w = weights.slice();
        for (let k = 0; k < w.length; k++) {
          w[k] = weights[k]! + h;
          const up = total(w, null);
          w[k] = weights[k]! - h;
          const down = total(w, null);
          w[k] = weights[k]!;
          expect(grad[k]).toBeCloseTo((up - down) / (2 * h), 5);
        }
        const T = encoder.layout.transitionBase;
        for (let ab = 0; ab < L * L; ab++) if (mask.allowed[ab] === 0) expect(grad[T + ab]).toBe(0);
      }),
      { numRuns: 60 },
    );
  });

  it("partial labels under a mask: loss = log Z_valid − log Z_valid∩consistent, or a clear error when no valid completion exists", () => {
    fc.assert(
      fc.property(fullConfigs, (c) => {
        const { encoder, weights, L } = setup(
          c.seed,
          { sequences: 4, transitions: c.transitions, unlabelled: 0.4, labels: 3 },
          c.dense,
          c.startEnd,
        );
        const rnd = seededRandom(c.seed ^ 0x7f4a7c15);
        const mask = {
          allowed: Uint8Array.from({ length: L * L }, () => (rnd() < 0.3 ? 1 : 0)),
          allowedStart: Uint8Array.from({ length: L }, () => (rnd() < 0.5 ? 1 : 0)),
          allowedEnd: Uint8Array.from({ length: L }, () => (rnd() < 0.5 ? 1 : 0)),
        };
        // Admit what the known labels use, so only the unknown stretches can make it infeasible.
        for (let i = 0; i < encoder.numInstances; i++) {
          const y = encoder.goldLabels(i);
          if (y[0]! >= 0) mask.allowedStart[y[0]!] = 1;
          if (y[y.length - 1]! >= 0) mask.allowedEnd[y[y.length - 1]!] = 1;
          for (let j = 1; j < y.length; j++) {
            if (y[j - 1]! >= 0 && y[j]! >= 0) mask.allowed[y[j - 1]! * L + y[j]!] = 1;
          }
        }
        const consistentValid = (i: number) => {
          const gold = encoder.goldLabels(i);
          return allLabellings(encoder.instanceLength(i), L).filter(
            (y) => isValid(y, L, mask) && y.every((t, j) => gold[j]! < 0 || gold[j] === t),
          );
        };
        let feasible = true;
        for (let i = 0; i < encoder.numInstances; i++) {
          if (consistentValid(i).length === 0) feasible = false;
        }
        if (!feasible) {
          expect(() => encoder.setConstraints(mask)).toThrow(/training constraints: sequence \d+/);
          expect(encoder.constrained).toBe(false);
          return;
        }
        encoder.setConstraints(mask);
        for (let i = 0; i < encoder.numInstances; i++) {
          const n = encoder.instanceLength(i);
          const valid = allLabellings(n, L).filter((y) => isValid(y, L, mask));
          const all = lse(valid.map((y) => pathScore(encoder, i, y, weights)));
          const known = lse(consistentValid(i).map((y) => pathScore(encoder, i, y, weights)));
          expect(encoder.instanceLoss(i, weights, null)).toBeCloseTo(all - known, 9);
        }
      }),
      { numRuns: 150 },
    );
  });

  it("rejects a gold labelling the mask forbids, naming the sequence and the labels", () => {
    const { encoder, L } = setup(3, { sequences: 4, maxLength: 5 }, false, true);
    let target = -1;
    for (let i = 0; i < encoder.numInstances && target < 0; i++) {
      if (encoder.instanceLength(i) > 1) target = i;
    }
    expect(target).toBeGreaterThanOrEqual(0);
    const y = encoder.goldLabels(target);
    const allowed = new Uint8Array(L * L).fill(1);
    allowed[y[0]! * L + y[1]!] = 0;
    const names = Array.from({ length: L }, (_, t) => `L${t}`);
    expect(() => encoder.setConstraints({ allowed }, names)).toThrow(
      new RegExp(`sequence ${target + 1}, tokens 1 and 2: the transition "L${y[0]}" → "L${y[1]}"`),
    );
    expect(encoder.constrained).toBe(false);
    const allowedStart = new Uint8Array(L).fill(1);
    allowedStart[encoder.goldLabels(0)[0]!] = 0;
    expect(() => encoder.setConstraints({ allowedStart })).toThrow(
      /sequence 1 starts with label #/,
    );
    expect(() => encoder.setConstraints({ allowed: new Uint8Array(3) })).toThrow(/length 3/);
  });
});

describe("CrfEncoder, label sets (partial annotations that restrict a token)", () => {
  function labelSetEncoder(seed: number) {
    const rnd = seededRandom(seed);
    const sequences = randomCorpus(seed, { sequences: 5, maxLength: 4, labels: 3 }).map((s) => ({
      attributes: s.attributes,
      labels: s.labels!.map((l) => {
        const r = rnd();
        if (r < 0.25) return null;
        if (r < 0.55) return [l as string, `L${Math.floor(rnd() * 3)}`];
        return l;
      }),
    }));
    const attributes = buildAttributeDictionary(sequences.map((s) => s.attributes));
    const labels = new LabelSet();
    for (const name of ["L0", "L1", "L2"]) labels.intern(name);
    const dataset = compileDataset(sequences, { attributes, labels, internLabels: true });
    const layout = buildFeatureLayout(dataset, attributes.size, labels.size, 0, {
      dense: seed % 2 === 0,
    });
    const encoder = new CrfEncoder(dataset, layout);
    const weights = Float64Array.from({ length: layout.numWeights }, () => rnd() * 2 - 1);
    return { encoder, weights, sequences };
  }

  it("the loss is log Z − log Z(labellings within every token's set), by enumeration", () => {
    for (let seed = 1; seed < 40; seed++) {
      const { encoder, weights, sequences } = labelSetEncoder(seed);
      for (let i = 0; i < encoder.numInstances; i++) {
        const n = encoder.instanceLength(i);
        const cells = sequences[i]!.labels;
        const all = allLabellings(n, 3);
        const within = all.filter((y) =>
          y.every((t, j) => {
            const cell = cells[j];
            if (cell === null || cell === undefined) return true;
            return typeof cell === "string" ? cell === `L${t}` : cell.includes(`L${t}`);
          }),
        );
        const expected =
          lse(all.map((y) => pathScore(encoder, i, y, weights))) -
          lse(within.map((y) => pathScore(encoder, i, y, weights)));
        expect(encoder.instanceLoss(i, weights, null)).toBeCloseTo(expected, 9);
      }
    }
  });

  it("refuses a label set no labelling can honour under the training mask", () => {
    const words: AttributeSequence = {
      length: 3,
      offsets: Int32Array.of(0, 1, 2, 3),
      names: ["a", "b", "c"],
      values: null,
      transition: null,
    };
    const attributes = buildAttributeDictionary([words]);
    const labels = new LabelSet();
    for (const name of ["O", "B", "I"]) labels.intern(name);
    const dataset = compileDataset(
      [
        {
          attributes: words,
          labels: ["O", ["I"], "O"],
        },
      ],
      { attributes, labels, internLabels: true },
    );
    const layout = buildFeatureLayout(dataset, attributes.size, labels.size, 0, {});
    const encoder = new CrfEncoder(dataset, layout);
    // BIO: O → I forbidden. "I" alone is a known label (a one-label set), caught pair by pair.
    const allowed = Uint8Array.of(1, 1, 0, 1, 1, 1, 1, 1, 1);
    expect(() => encoder.setConstraints({ allowed })).toThrow(/forbidden by the constraints/);
    const sets = compileDataset(
      [
        {
          attributes: words,
          labels: ["O", ["B", "I"], null],
        },
      ],
      { attributes, labels, internLabels: true },
    );
    const other = new CrfEncoder(
      sets,
      buildFeatureLayout(sets, attributes.size, labels.size, 0, {}),
    );
    // Only O may follow O: the set {B, I} after it cannot be honoured.
    const onlyO = Uint8Array.of(1, 0, 0, 1, 1, 1, 1, 1, 1);
    expect(() => other.setConstraints({ allowed: onlyO })).toThrow(/within their label sets/);
  });
});
