import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { DecodeOptions, DecodeProblem, Decoder, Decoding } from "@lagrange/core";
import { afterAll, describe, expect, it } from "vitest";
import {
  ad3TaskOptionsFromFlags,
  type CitationTaskResult,
  type DecodeTrace,
  type GroupTaskResult,
} from "./ad3-task-options.js";
import { ad3TaskMarkdown, writeAd3TaskFigures } from "./ad3-task-report.js";
import {
  certifiedWithin,
  curveCaps,
  pointAt,
  secondsToRate,
  stepRun,
  tracingDecoder,
} from "./ad3-task-trace.js";
import { ad3TaskSection, ad3TaskTargets } from "./ad3-tasks.js";

/** A trace whose iteration k (1-based) ends at k ms, the whole call one ms later. */
function trace(
  duals: readonly number[],
  certified: boolean,
  counted = true,
  finalDual = duals.at(-1) ?? 0,
  positions = 10,
): DecodeTrace {
  const bestDual: number[] = [];
  let best = Number.POSITIVE_INFINITY;
  for (const d of duals) {
    best = Math.min(best, d);
    bestDual.push(best);
  }
  return {
    ms: duals.map((_, k) => k + 1),
    bestDual,
    totalMs: duals.length + 1,
    iterations: duals.length,
    certified,
    finalDual,
    counted,
    positions,
  };
}

describe("ad3-tasks traces", () => {
  const traces = [
    trace([5], true),
    trace([9, 7, 8, 6], true),
    trace([4, 3, 3, 3, 3, 3], false, true, 3, 30),
    trace([1], true, false),
  ];

  it("reads a capped run off full traces: time, certificates and best dual at each cap", () => {
    expect(pointAt(traces, 1)).toEqual({
      maxIterations: 1,
      // 2 (whole) + 1 + 1 + 2 (whole, not counted)
      seconds: 6 / 1000,
      certifiedRate: 1 / 3,
      meanDual: (5 + 9 + 4) / 3,
    });
    const at4 = pointAt(traces, 4);
    expect(at4.seconds).toBeCloseTo((2 + 5 + 4 + 2) / 1000, 12);
    expect(at4.certifiedRate).toBeCloseTo(2 / 3, 12);
    // The second decode's best dual is its final bound once it has stopped.
    expect(at4.meanDual).toBeCloseTo((5 + 6 + 3) / 3, 12);
    const whole = pointAt(traces, 100);
    expect(whole.seconds).toBeCloseTo((2 + 5 + 7 + 2) / 1000, 12);
    expect(whole.certifiedRate).toBeCloseTo(2 / 3, 12);
  });

  it("never certifies a decode before the iteration that certified it", () => {
    for (let cap = 1; cap <= 6; cap++) {
      const p = pointAt(traces, cap);
      const expected = 1 + (cap >= 4 ? 1 : 0);
      expect(p.certifiedRate).toBeCloseTo(expected / 3, 12);
    }
  });

  it("draws curves at 1, 2, 3, 5, 10, … and the longest decode", () => {
    expect(curveCaps(traces)).toEqual([1, 2, 3, 5, 6]);
    expect(curveCaps([trace(new Array(230).fill(1), false)])).toEqual([
      1, 2, 3, 5, 10, 20, 50, 100, 200, 230,
    ]);
    expect(curveCaps([trace([1], true)])).toEqual([1]);
  });

  it("finds the certified share within a time budget and the time to reach a share", () => {
    // Cap 1 takes 6 ms, cap 4 takes 13 ms.
    expect(certifiedWithin(traces, 0.005)).toBe(0);
    expect(certifiedWithin(traces, 0.006)).toBeCloseTo(1 / 3, 12);
    expect(certifiedWithin(traces, 0.0129)).toBeCloseTo(1 / 3, 12);
    expect(certifiedWithin(traces, 0.013)).toBeCloseTo(2 / 3, 12);
    expect(secondsToRate(traces, 2 / 3)).toBeCloseTo(0.013, 12);
    expect(secondsToRate(traces, 1)).toBeNull();
  });

  it("sums a step's figures over the counted decodes", () => {
    const run = stepRun("ad3", 1000, traces, 90, 0.008);
    expect(run.seconds).toBeCloseTo(0.016, 12);
    expect(run.countedSeconds).toBeCloseTo(0.014, 12);
    expect(run.overViterbi).toBeCloseTo(2, 12);
    expect(run.certifiedRate).toBeCloseTo(2 / 3, 12);
    expect(run.meanIterations).toBeCloseTo(11 / 3, 12);
    // Weighted by positions (10, 10, 30; the uncounted decode left out).
    expect(run.iterationsPerToken).toBeCloseTo((1 * 10 + 4 * 10 + 6 * 30) / 50, 12);
    expect(run.msPerIteration).toBeCloseTo(14 / 11, 12);
    expect(run.uncertified).toBe(1);
    expect(run.uncertifiedMeanIterations).toBe(6);
    expect(run.curve.at(-1)!.maxIterations).toBe(6);
  });

  it("records each decode's iterations through onIteration and still calls the caller's", () => {
    let now = 0;
    const clock = () => now;
    const inner: Decoder = {
      name: "fake",
      decode(problem: DecodeProblem, options?: DecodeOptions): Decoding {
        const duals = [3, 1, 2];
        for (const [k, dual] of duals.entries()) {
          now += 10;
          options?.onIteration?.({
            iteration: k + 1,
            dual,
            primal: 0,
            gap: dual,
            stepSize: 1,
            disagreements: 0,
          });
        }
        now += 5;
        return {
          labels: new Int32Array(problem.scores.n),
          primal: 0.5,
          dual: 1,
          status: "iteration-limit",
          iterations: duals.length,
          certified: false,
          gap: 0.5,
        };
      },
    };
    const seen: number[] = [];
    const { decoder, traces: recorded } = tracingDecoder(inner, () => true, clock);
    const scores = { n: 2, L: 2, unary: new Float64Array(4), transition: new Float64Array(4) };
    decoder.decode({ scores }, { onIteration: (s) => void seen.push(s.iteration) });
    expect(seen).toEqual([1, 2, 3]);
    expect(recorded).toEqual([
      {
        ms: [10, 20, 30],
        bestDual: [3, 1, 1],
        totalMs: 35,
        iterations: 3,
        certified: false,
        finalDual: 1,
        counted: true,
        positions: 2,
      },
    ]);
    expect(decoder.name).toBe("fake");
  });

  it("maps the CLI flags onto the section's options, leaving absent ones to its defaults", () => {
    expect(ad3TaskOptionsFromFlags({})).toEqual({});
    expect(
      ad3TaskOptionsFromFlags({
        tasks: ["umass", "wnut16"],
        limit: 50,
        maxTrain: 400,
        exactLimit: 2000,
        skipExact: true,
        ad3Iterations: 300,
      }),
    ).toEqual({
      tasks: ["umass", "wnut16"],
      limit: 50,
      maxTrainSentences: 400,
      exactTimeLimitMs: 2000,
      noExact: true,
      ad3Iterations: 300,
    });
    expect(() => ad3TaskOptionsFromFlags({ tasks: ["conll2002"] })).toThrow(
      /unknown task "conll2002"/,
    );
  });

  it("states issue 41's task targets against Viterbi, the subgradient step and its time", () => {
    const timing = (decoder: string, decodingRatio: number) => ({
      decoder,
      taggingMs: 10 * decodingRatio,
      decodingMs: decodingRatio,
      taggingRatio: decodingRatio,
      decodingRatio,
    });
    const umass: CitationTaskResult = {
      kind: "citations",
      id: "umass",
      data: "generated",
      generated: true,
      testCitations: 3,
      constraints: 5,
      viterbiF1: 90,
      viterbiSeconds: 0.008,
      subgradient: stepRun("subgradient", 200, traces.slice(0, 2), 91, 0.008),
      ad3: stepRun("ad3", 1000, traces, 91.05, 0.008),
      timing: [
        timing("viterbi", 1),
        timing("soft-dd (subgradient)", 1.2),
        timing("soft-dd (ad3)", 2.5),
      ],
    };
    const sg = stepRun("subgradient", 200, traces.slice(0, 2), 80, 0.008);
    const conll: GroupTaskResult = {
      kind: "groups",
      id: "conll2003",
      grouping: "documents",
      sizes: { train: 1, dev: 1, devTokens: 1, groups: 4, withFactors: 3, largestPositions: 9 },
      model: {
        trainDecoder: "two-slave",
        crfIterations: 1,
        folds: 2,
        epochs: 1,
        weights: {},
        crfSeconds: 0,
        perceptronSeconds: 0,
      },
      viterbi: { seconds: 0.008, f: 80 },
      decompositions: [
        {
          decoder: "two-slave",
          subgradient: sg,
          ad3: stepRun("ad3", 1000, traces, 80, 0.008),
          ad3CertifiedAtSubgradientTime: certifiedWithin(traces, sg.seconds),
          ad3SecondsToSubgradientRate: secondsToRate(traces, sg.certifiedRate),
        },
      ],
      exact: [],
    };
    const targets = ad3TaskTargets([umass, conll]);
    const byName = (start: string) => targets.find((t) => t.name.startsWith(start))!;
    expect(byName("UMass Soft-DD, AD3 step: ≥ 99.5 %")).toMatchObject({
      value: "66.7 %",
      met: false,
    });
    expect(byName("UMass Soft-DD, AD3 step: decoding ≤ 3× Viterbi")).toMatchObject({
      value: "2.50× (traced pass 2.00×; 4.60 iterations per token, each at least one Viterbi pass)",
      met: true,
    });
    expect(byName("UMass Soft-DD, AD3 step: field F1 unchanged").met).toBe(true);
    expect(byName("UMass Soft-DD, subgradient step: decoding ≤ 1.3× Viterbi")).toMatchObject({
      value: "1.20× (traced pass 0.88×; 2.50 Viterbi passes per token)",
      met: true,
    });
    // The subgradient pass took 7 ms: AD3 certifies one counted decode of three by then.
    expect(byName("CoNLL-2003 documents, two-slave, AD3 step")).toMatchObject({
      value: "33.3 % within 0.01 s (subgradient 100.0 %; AD3 uncapped 66.7 %)",
      met: false,
    });
    expect(
      ad3TaskMarkdown({
        settings: {
          subgradientIterations: 200,
          ad3Iterations: 1000,
          limit: null,
          exactTimeLimitMs: 1,
        },
        tasks: [umass, conll],
        skipped: [],
        targets,
      }),
    ).toContain("Viterbi (the chain alone): field F1 90.00, 0.008 s.");
  });

  it("marks every target not run when no task ran", () => {
    const targets = ad3TaskTargets([]);
    expect(targets.length).toBeGreaterThan(0);
    for (const t of targets) expect(t.met).toBeNull();
  });
});

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../../../..");
const wnut16 = join(repoRoot, "..", "shared", "datasets", "wnut16", "train");
const present = existsSync(wnut16);

describe.skipIf(!present)(
  `bench ad3 tasks, a small WNUT-16 run${present ? "" : ` — skipped: ${wnut16} is missing`}`,
  () => {
    let dir: string | undefined;
    afterAll(async () => {
      if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    });

    it("runs both steps on both decompositions, the exact decoders, and writes the curves", async () => {
      dir = await mkdtemp(join(tmpdir(), "lagrange-bench-ad3-tasks-"));
      const result = await ad3TaskSection({
        tasks: ["wnut16"],
        maxTrainSentences: 200,
        limit: 150,
        crfIterations: 5,
        folds: 2,
        epochs: 1,
        exactTimeLimitMs: 500,
        threads: 1,
        cacheDir: dir,
      });
      const task = result.tasks[0]!;
      expect(task.kind).toBe("groups");
      if (task.kind !== "groups") return;
      expect(task.decompositions.map((d) => d.decoder)).toEqual(["two-slave", "naive-dd"]);
      for (const d of task.decompositions) {
        for (const run of [d.subgradient, d.ad3]) {
          expect(run.certifiedRate).toBeGreaterThanOrEqual(0);
          expect(run.certifiedRate).toBeLessThanOrEqual(1);
          expect(run.curve.length).toBeGreaterThan(0);
          expect(run.curve.at(-1)!.certifiedRate).toBeCloseTo(run.certifiedRate, 12);
          expect(run.seconds).toBeGreaterThan(0);
        }
        expect(d.subgradient.maxIterations).toBe(200);
        expect(d.ad3.maxIterations).toBe(1000);
      }
      expect(task.exact.map((e) => e.decoder)).toEqual([
        "exact ILP (HiGHS)",
        "two-slave, AD3 + branch and bound",
      ]);
      const markdown = ad3TaskMarkdown(result);
      expect(markdown).toContain("two-slave, AD3");
      expect(markdown).toContain("naive-dd, subgradient");
      const files = await writeAd3TaskFigures(result, dir);
      expect(files.map((f) => f.slice(dir!.length + 1))).toEqual([
        "wnut16-ad3-certified.svg",
        "wnut16-ad3-dual.svg",
      ]);
      expect(await readFile(files[0]!, "utf8")).toContain("two-slave AD3");
    });
  },
);
