import { AbortError } from "@lagrange/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Encoder, TrainingProgress } from "../encoder.js";
import { LogisticEncoder, makeLogisticData, plainEncoder } from "../testing/logistic-encoder.js";
import { openObjectivePool, trainAveragedPerceptron, trainLbfgs, trainSgd } from "./index.js";
import { shardBoundaries } from "./pool.js";

/** Σ loss_i + c2‖w‖² + c1‖w‖₁ and the gradient of its smooth part, computed directly. */
function objective(encoder: Encoder, w: Float64Array, c1: number, c2: number) {
  const g = new Float64Array(encoder.numWeights);
  let f = 0;
  for (let i = 0; i < encoder.numInstances; i++) f += encoder.instanceLoss(i, w, g, 1);
  for (let j = 0; j < w.length; j++) {
    f += c2 * w[j]! ** 2 + c1 * Math.abs(w[j]!);
    g[j] = g[j]! + 2 * c2 * w[j]!;
  }
  return { f, g };
}

/** An upper bound on the Lipschitz constant of the smooth objective's gradient. */
function lipschitz(encoder: LogisticEncoder, c2: number): number {
  const d = encoder.descriptor();
  let s = 0;
  for (let k = 0; k < d.featureValue.length; k++) s += d.featureValue[k]! ** 2;
  return s + 2 * c2;
}

/** Proximal gradient (FISTA) on the same objective: the independent reference. */
function proximalGradient(encoder: LogisticEncoder, c1: number, c2: number, iterations: number) {
  const K = encoder.numWeights;
  const step = 1 / lipschitz(encoder, c2);
  const x = new Float64Array(K);
  const prev = new Float64Array(K);
  const z = new Float64Array(K);
  let t = 1;
  for (let it = 0; it < iterations; it++) {
    const { g } = objective(encoder, z, 0, c2);
    prev.set(x);
    for (let j = 0; j < K; j++) {
      const v = z[j]! - step * g[j]!;
      x[j] = Math.sign(v) * Math.max(0, Math.abs(v) - step * c1);
    }
    const tNext = (1 + Math.sqrt(1 + 4 * t * t)) / 2;
    for (let j = 0; j < K; j++) z[j] = x[j]! + ((t - 1) / tNext) * (x[j]! - prev[j]!);
    t = tNext;
  }
  return x;
}

function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]! - b[i]!));
  return m;
}

const norm = (v: Float64Array) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));

function toyEncoder(seed: number, instances = 60, noise = 0.2) {
  return new LogisticEncoder(makeLogisticData(seed, { instances, features: 8, labels: 3, noise }));
}

describe("trainLbfgs", () => {
  it("reaches the optimum that plain gradient descent finds after a long run", async () => {
    const encoder = toyEncoder(1);
    const c2 = 0.1;
    const r = await trainLbfgs(encoder, { c2, epsilon: 1e-9, delta: 0 });
    expect(r.stopReason).toMatch(/converged|line-search-failed/);
    const at = objective(encoder, r.weights, 0, c2);
    expect(norm(at.g)).toBeLessThan(1e-6);
    expect(r.loss).toBeCloseTo(at.f, 9);

    // Plain gradient descent with step 1/L for many iterations.
    const step = 1 / lipschitz(encoder, c2);
    const w = new Float64Array(encoder.numWeights);
    for (let it = 0; it < 20000; it++) {
      const { g } = objective(encoder, w, 0, c2);
      for (let j = 0; j < w.length; j++) w[j] = w[j]! - step * g[j]!;
    }
    expect(maxAbsDiff(r.weights, w)).toBeLessThan(1e-4);
    expect(objective(encoder, w, 0, c2).f).toBeGreaterThanOrEqual(at.f - 1e-9);
  });

  it("applies CRFsuite's L2 convention: the gradient of c2‖w‖² is 2·c2·w", async () => {
    // At the optimum Σ∇loss_i = −2·c2·w, whatever c2 is.
    for (const c2 of [0.01, 1, 10]) {
      const encoder = toyEncoder(2);
      const r = await trainLbfgs(encoder, { c2, epsilon: 1e-10, delta: 0 });
      const { g } = objective(encoder, r.weights, 0, 0);
      for (let j = 0; j < g.length; j++) expect(g[j]!).toBeCloseTo(-2 * c2 * r.weights[j]!, 6);
    }
  });

  it("uses OWL-QN for c1 > 0: exact zeros, optimality conditions, agrees with proximal gradient", async () => {
    const encoder = toyEncoder(3);
    for (const [c1, c2] of [
      [2, 0],
      [1, 0.5],
    ] as const) {
      const progress: TrainingProgress[] = [];
      const r = await trainLbfgs(encoder, {
        c1,
        c2,
        epsilon: 1e-10,
        delta: 0,
        maxIterations: 2000,
        onProgress: (p) => {
          progress.push(p);
        },
      });
      const zeros = r.weights.filter((v) => v === 0).length;
      expect(zeros).toBeGreaterThan(0);
      expect(zeros).toBeLessThan(r.weights.length);
      expect(progress.at(-1)!.activeFeatures).toBe(r.weights.length - zeros);
      const { g } = objective(encoder, r.weights, 0, c2);
      for (let j = 0; j < g.length; j++) {
        const wj = r.weights[j]!;
        if (wj === 0) expect(Math.abs(g[j]!)).toBeLessThanOrEqual(c1 + 1e-6);
        else expect(g[j]! + Math.sign(wj) * c1).toBeCloseTo(0, 5);
      }
      const reference = proximalGradient(encoder, c1, c2, 20000);
      expect(maxAbsDiff(r.weights, reference)).toBeLessThan(1e-4);
    }
  });

  it("reports progress every iteration, held-out scores every `every` iterations", async () => {
    const encoder = toyEncoder(4);
    const seen: TrainingProgress[] = [];
    const evaluated: number[] = [];
    const r = await trainLbfgs(encoder, {
      maxIterations: 9,
      heldOut: {
        every: 3,
        evaluate: (w) => {
          evaluated.push(w[0]!);
          return { tokenAccuracy: evaluated.length };
        },
      },
      onProgress: (p) => {
        seen.push(p);
      },
    });
    expect(seen.map((p) => p.iteration)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(seen.filter((p) => p.heldOut !== undefined).map((p) => p.iteration)).toEqual([3, 6, 9]);
    for (let k = 1; k < seen.length; k++)
      expect(seen[k]!.loss).toBeLessThanOrEqual(seen[k - 1]!.loss);
    expect(r.stopReason).toBe("max-iterations");
    expect(r.bestHeldOut).toEqual({ tokenAccuracy: 3, iteration: 9 });
  });

  it("stops early when the held-out score has not improved for `patience` evaluations", async () => {
    const encoder = toyEncoder(5);
    const snapshots = new Map<number, Float64Array>();
    let iteration = 0;
    const r = await trainLbfgs(encoder, {
      heldOut: {
        patience: 2,
        evaluate: (w) => {
          iteration++;
          snapshots.set(iteration, Float64Array.from(w));
          // Peaks at iteration 4, then declines.
          return {
            tokenAccuracy: 0.9 - 0.01 * Math.abs(iteration - 4),
            f1: 80 - Math.abs(iteration - 4),
          };
        },
      },
    });
    expect(r.stopReason).toBe("early-stopping");
    expect(r.iterations).toBe(6);
    expect(r.bestHeldOut).toEqual({ tokenAccuracy: 0.9, f1: 80, iteration: 4 });
    expect(Array.from(r.weights)).toEqual(Array.from(snapshots.get(4)!));
  });

  it("stops when onProgress returns false, and rejects bad options clearly", async () => {
    const encoder = toyEncoder(6);
    const r = await trainLbfgs(encoder, { onProgress: (p) => p.iteration < 2 });
    expect(r).toMatchObject({ stopReason: "stopped", iterations: 2 });
    await expect(trainLbfgs(encoder, { c2: -1 })).rejects.toThrow(/trainLbfgs options: c2/);
    await expect(trainLbfgs(encoder, { initialWeights: new Float64Array(3) })).rejects.toThrow(
      /initialWeights has length 3, expected 24/,
    );
    await expect(trainLbfgs(encoder, { threads: 1.5 })).rejects.toThrow(/threads/);
  });

  it("throws AbortError when the signal fires", async () => {
    const encoder = toyEncoder(7);
    const controller = new AbortController();
    const run = trainLbfgs(encoder, {
      signal: controller.signal,
      epsilon: 0,
      delta: 0,
      onProgress: (p) => {
        if (p.iteration === 3) controller.abort();
      },
    });
    await expect(run).rejects.toBeInstanceOf(AbortError);
  });
});

describe("trainLbfgs on one thread, interrupted inside an evaluation", () => {
  it("lets the event loop turn during a long evaluation, so a signal stops it mid-pass", async () => {
    const inner = toyEncoder(8, 40);
    const controller = new AbortController();
    let losses = 0;
    // Each instance takes 2 ms: an evaluation lasts 80 ms, longer than the trainer's time slice.
    const slow: Encoder = {
      ...plainEncoder(inner),
      instanceLoss: (i, w, g, scale) => {
        losses++;
        const until = performance.now() + 2;
        while (performance.now() < until) {
          // Busy: synchronous work, as a real evaluation with many labels is.
        }
        return inner.instanceLoss(i, w, g, scale);
      },
    };
    // The "signal handler": a timer, which only runs when the evaluation lets the loop turn.
    setTimeout(() => controller.abort(), 0);
    await expect(trainLbfgs(slow, { signal: controller.signal })).rejects.toBeInstanceOf(
      AbortError,
    );
    // Before, the whole first evaluation (40 instances) ran before the signal was seen.
    expect(losses).toBeLessThan(inner.numInstances);
  });
});

describe("threads (worker pool)", () => {
  it("computes the same objective and gradient as one thread, up to summation order", async () => {
    const encoder = toyEncoder(8, 200);
    const expected = new Float64Array(encoder.numWeights);
    const actual = new Float64Array(encoder.numWeights);
    for (const threads of [2, 3]) {
      const pool = await openObjectivePool(encoder, {
        threads,
        encoderModule: encoder.restoreModule,
        descriptor: encoder.descriptor(),
      });
      try {
        await fc.assert(
          fc.asyncProperty(
            fc.array(fc.double({ min: -3, max: 3, noNaN: true }), {
              minLength: encoder.numWeights,
              maxLength: encoder.numWeights,
            }),
            async (values) => {
              const w = Float64Array.from(values);
              expected.fill(0);
              let f = 0;
              for (let i = 0; i < encoder.numInstances; i++)
                f += encoder.instanceLoss(i, w, expected, 1);
              const g = await pool.evaluate(w, actual);
              expect(Math.abs(g - f)).toBeLessThanOrEqual(1e-9 * Math.abs(f));
              expect(maxAbsDiff(actual, expected)).toBeLessThanOrEqual(1e-9 * (1 + norm(expected)));
            },
          ),
          { numRuns: 20 },
        );
      } finally {
        await pool.close();
      }
      expect(pool.liveWorkers).toBe(0);
    }
  });

  it("trains the same model with 1 and 3 threads", async () => {
    const encoder = toyEncoder(9, 150);
    const single = await trainLbfgs(encoder, { c2: 0.5 });
    const threaded = await trainLbfgs(encoder, { c2: 0.5, threads: 3 });
    expect([single.threads, threaded.threads]).toEqual([1, 3]);
    expect(threaded.stopReason).toBe(single.stopReason);
    expect(Math.abs(threaded.iterations - single.iterations)).toBeLessThanOrEqual(1);
    expect(maxAbsDiff(threaded.weights, single.weights)).toBeLessThan(1e-6);
    expect(threaded.weights.buffer).toBeInstanceOf(ArrayBuffer);
  });

  it("falls back to one thread when the encoder has no descriptor()", async () => {
    const encoder = toyEncoder(10);
    const a = await trainLbfgs(plainEncoder(encoder), { threads: 4, maxIterations: 5 });
    const b = await trainLbfgs(encoder, { maxIterations: 5 });
    expect(a.threads).toBe(1);
    expect(Array.from(a.weights)).toEqual(Array.from(b.weights));
  });

  it("aborts promptly mid-training and terminates its workers", async () => {
    const encoder = toyEncoder(11, 3000);
    const controller = new AbortController();
    let iterations = 0;
    let abortedAt = 0;
    let iterationsAtAbort = 0;
    const pending = trainLbfgs(encoder, {
      threads: 2,
      epsilon: 0,
      delta: 0,
      signal: controller.signal,
      onProgress: () => {
        // Abort from a timer once training runs: the trainer must yield to the event loop.
        if (++iterations === 2) {
          setTimeout(() => {
            abortedAt = performance.now();
            iterationsAtAbort = iterations;
            controller.abort();
          }, 20);
        }
      },
    });
    await expect(pending).rejects.toBeInstanceOf(AbortError);
    expect(abortedAt).toBeGreaterThan(0);
    expect(performance.now() - abortedAt).toBeLessThan(2000);
    // The abort lands between iterations or inside a pass; no further iteration completes.
    expect(iterations).toBe(iterationsAtAbort);
    // The pool closed in trainLbfgs' finally: no worker handles keep the process alive.
    expect(
      process.getActiveResourcesInfo().filter((r) => r === "Worker" || r === "MessagePort"),
    ).toEqual([]);
  });

  it("reports a worker that cannot restore the encoder, and leaves no worker behind", async () => {
    const encoder = toyEncoder(12);
    await expect(trainLbfgs(encoder, { threads: 2, exportName: "noSuchExport" })).rejects.toThrow(
      /does not export a function "noSuchExport"/,
    );
    await expect(
      openObjectivePool(encoder, { threads: 2, encoderModule: "./relative.ts", descriptor: {} }),
    ).rejects.toThrow(/encoderModule must be a URL/);
    expect(
      process.getActiveResourcesInfo().filter((r) => r === "Worker" || r === "MessagePort"),
    ).toEqual([]);
  });
});

describe("shardBoundaries", () => {
  it("cuts instances into non-empty contiguous shards of about equal token count", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 50 }), { minLength: 1, maxLength: 60 }),
        fc.integer({ min: 1, max: 8 }),
        (lengths, shards) => {
          const encoder = {
            numInstances: lengths.length,
            instanceLength: (i: number) => lengths[i]!,
          };
          const bounds = shardBoundaries(encoder as unknown as Encoder, shards);
          const count = Math.min(shards, lengths.length);
          expect(bounds.length).toBe(count + 1);
          expect(bounds[0]).toBe(0);
          expect(bounds[count]).toBe(lengths.length);
          for (let s = 0; s < count; s++) expect(bounds[s + 1]!).toBeGreaterThan(bounds[s]!);
          // Each shard but the last stops at the first instance reaching its share, so no shard
          // exceeds its share by more than its last instance.
          const total = lengths.reduce((a, b) => a + b, 0);
          const longest = Math.max(...lengths);
          for (let s = 0; s < count; s++) {
            let tokens = 0;
            for (let i = bounds[s]!; i < bounds[s + 1]!; i++) tokens += lengths[i]!;
            if (bounds[s + 1]! - bounds[s]! > 1)
              expect(tokens).toBeLessThanOrEqual(total / count + 2 * longest);
          }
        },
      ),
    );
  });
});

describe("trainAveragedPerceptron", () => {
  it("separates a separable problem and stops after an epoch without mistakes", async () => {
    const encoder = toyEncoder(13, 80, 0);
    const progress: TrainingProgress[] = [];
    const r = await trainAveragedPerceptron(encoder, {
      epochs: 200,
      seed: 1,
      onProgress: (p) => {
        progress.push(p);
      },
    });
    // An epoch without mistakes: the (unaveraged) weights separate the data.
    expect(r.stopReason).toBe("no-mistakes");
    expect(progress.at(-1)!.loss).toBe(0);
    expect(progress[0]!.loss).toBeGreaterThan(0);
    // The averaged weights, which are returned, label nearly all of it correctly too.
    const out = new Int32Array(3);
    let wrong = 0;
    let tokens = 0;
    for (let i = 0; i < encoder.numInstances; i++) {
      encoder.decode(i, r.weights, out);
      const gold = encoder.goldLabels(i);
      tokens += gold.length;
      for (let t = 0; t < gold.length; t++) if (out[t] !== gold[t]) wrong++;
    }
    expect(wrong / tokens).toBeLessThan(0.05);
  });

  it("returns the average of the weight vectors after every step (checked against the naive sum)", async () => {
    const encoder = toyEncoder(14, 30, 0.3);
    const r = await trainAveragedPerceptron(encoder, { epochs: 3, shuffle: false });
    // Naive averaged perceptron: sum w after each instance, divide by the number of steps.
    const w = new Float64Array(encoder.numWeights);
    const sum = new Float64Array(encoder.numWeights);
    const out = new Int32Array(3);
    let steps = 0;
    for (let e = 0; e < 3; e++) {
      for (let i = 0; i < encoder.numInstances; i++) {
        encoder.decode(i, w, out);
        const gold = encoder.goldLabels(i);
        const path = out.subarray(0, gold.length);
        if (path.some((y, t) => y !== gold[t])) {
          encoder.addFeatureCounts(i, gold, 1, w);
          encoder.addFeatureCounts(i, path, -1, w);
        }
        for (let j = 0; j < w.length; j++) sum[j] = sum[j]! + w[j]!;
        steps++;
      }
    }
    // The lazy trick averages over steps + 1 vectors (the zero start included), as CRFsuite.
    const expected = sum.map((s) => s / (steps + 1));
    expect(maxAbsDiff(r.weights, expected)).toBeLessThan(1e-12);
  });

  it("is reproducible for a seed and aborts between instances", async () => {
    const encoder = toyEncoder(15, 50, 0.3);
    const a = await trainAveragedPerceptron(encoder, { epochs: 4, seed: 9 });
    const b = await trainAveragedPerceptron(encoder, { epochs: 4, seed: 9 });
    expect(Array.from(a.weights)).toEqual(Array.from(b.weights));
    const controller = new AbortController();
    controller.abort();
    await expect(
      trainAveragedPerceptron(encoder, { signal: controller.signal }),
    ).rejects.toBeInstanceOf(AbortError);
  });
});

describe("trainSgd", () => {
  it("gets within a small tolerance of the L-BFGS optimum of the same objective", async () => {
    const encoder = toyEncoder(16, 100);
    const c2 = 1;
    const optimum = await trainLbfgs(encoder, { c2, epsilon: 1e-9, delta: 0 });
    const r = await trainSgd(encoder, { c2, epochs: 300, delta: 1e-7, seed: 3 });
    const f = objective(encoder, r.weights, 0, c2).f;
    expect((f - optimum.loss) / optimum.loss).toBeLessThan(2e-3);
    expect(f).toBeGreaterThanOrEqual(optimum.loss - 1e-9);
    expect(r.t0).toBeGreaterThan(0);
  });

  it("computes the same steps with sparse scaled updates and with dense ones", async () => {
    const encoder = toyEncoder(17, 40);
    const options = { c2: 0.5, epochs: 5, t0: 50, seed: 4 };
    const sparse = await trainSgd(encoder, options);
    const dense = await trainSgd(plainEncoder(encoder), options);
    expect(maxAbsDiff(sparse.weights, dense.weights)).toBeLessThan(1e-9);
    expect(sparse.iterations).toBe(5);
  });

  it("stops early on held-out data and honours abort", async () => {
    const encoder = toyEncoder(18, 40);
    let calls = 0;
    const r = await trainSgd(encoder, {
      t0: 20,
      heldOut: { patience: 3, evaluate: () => ({ tokenAccuracy: calls++ === 0 ? 1 : 0.5 }) },
    });
    expect(r.stopReason).toBe("early-stopping");
    expect(r.iterations).toBe(4);
    expect(r.bestHeldOut).toEqual({ tokenAccuracy: 1, iteration: 1 });
    const controller = new AbortController();
    const run = trainSgd(encoder, {
      t0: 20,
      signal: controller.signal,
      onProgress: () => {
        controller.abort();
      },
    });
    await expect(run).rejects.toBeInstanceOf(AbortError);
    await expect(trainSgd(encoder, { c2: 0 })).rejects.toThrow(/c2 must be > 0/);
  });
});
