import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DataFormatError } from "../formats/errors.js";
import {
  CALIBRATION_BINS,
  calibration,
  calibrationOfColumns,
  endsInConfidences,
  formatCalibrationReport,
  readConfidenceColumns,
  reliabilityDiagramSvg,
} from "./calibration.js";

describe("calibration", () => {
  it("a hand-computed case: ECE, MCE and Brier", () => {
    // Two bins: [0, 0.5) and [0.5, 1].
    // Bin 0: confidences 0.2, 0.4 (mean 0.3), outcomes 1, 0 (accuracy 0.5): gap 0.2.
    // Bin 1: confidences 0.6, 0.9, 1.0 (mean 2.5/3), outcomes 1, 1, 1 (accuracy 1): gap 1/6.
    // ECE = 2/5 · 0.2 + 3/5 · 1/6 = 0.08 + 0.1 = 0.18; MCE = 0.2.
    // Brier = (0.64 + 0.16 + 0.16 + 0.01 + 0) / 5 = 0.194.
    const c = calibration([0.2, 0.4, 0.6, 0.9, 1], [true, false, true, true, true], 2);
    expect(c.ece).toBeCloseTo(0.18, 12);
    expect(c.mce).toBeCloseTo(0.2, 12);
    expect(c.brier).toBeCloseTo(0.194, 12);
    expect(c.accuracy).toBeCloseTo(0.8, 12);
    expect(c.confidence).toBeCloseTo(0.62, 12);
    expect(c.bins.map((b) => b.count)).toEqual([2, 3]);
    expect(c.bins[0]!.confidence).toBeCloseTo(0.3, 12);
    expect(c.bins[1]!.accuracy).toBe(1);
  });

  it("15 equal-width bins by default; 1.0 falls in the last, an empty bin is NaN and weighs 0", () => {
    const c = calibration([1, 1, 0], [true, true, false]);
    expect(c.bins).toHaveLength(CALIBRATION_BINS);
    expect(c.bins[14]!.count).toBe(2);
    expect(c.bins[0]!.count).toBe(1);
    expect(Number.isNaN(c.bins[7]!.accuracy)).toBe(true);
    expect(c.ece).toBe(0);
    expect(c.brier).toBe(0);
  });

  it("a confidence on an edge falls in the bin whose lower edge it is, for any bin count", () => {
    for (let bins = 1; bins <= 60; bins++) {
      const edges = Array.from({ length: bins }, (_, b) => b / bins);
      const c = calibration(
        edges,
        edges.map(() => true),
        bins,
      );
      for (const [b, bin] of c.bins.entries()) {
        expect(bin.count, `${b}/${bins}`).toBe(1);
        expect(bin.confidence).toBe(bin.lower);
      }
    }
  });

  it("is perfectly calibrated (ECE ≈ 0) when outcomes are drawn at their confidence", () => {
    // mulberry32: consecutive draws of a plain LCG are correlated, which shows up as miscalibration.
    let state = 12345;
    const random = () => {
      state = (state + 0x6d2b79f5) | 0;
      let t = Math.imul(state ^ (state >>> 15), 1 | state);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    const n = 200_000;
    const confidence = new Float64Array(n);
    const correct: boolean[] = [];
    for (let k = 0; k < n; k++) {
      confidence[k] = random();
      correct.push(random() < confidence[k]!);
    }
    const c = calibration(confidence, correct);
    expect(c.ece).toBeLessThan(0.01);
    // Always right at confidence 0.5: off by half everywhere it says 0.5.
    const over = calibration(new Float64Array(1000).fill(0.5), new Array(1000).fill(true));
    expect(over.ece).toBeCloseTo(0.5, 12);
  });

  it("ECE ≤ MCE, both in [0, 1], Brier in [0, 1]", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.double({ min: 0, max: 1, noNaN: true }), fc.boolean()), {
          minLength: 1,
          maxLength: 200,
        }),
        fc.integer({ min: 1, max: 20 }),
        (pairs, bins) => {
          const c = calibration(
            pairs.map((p) => p[0]),
            pairs.map((p) => p[1]),
            bins,
          );
          expect(c.ece).toBeGreaterThanOrEqual(0);
          expect(c.ece).toBeLessThanOrEqual(c.mce + 1e-12);
          expect(c.mce).toBeLessThanOrEqual(1);
          expect(c.brier).toBeGreaterThanOrEqual(0);
          expect(c.brier).toBeLessThanOrEqual(1);
          expect(c.bins.reduce((s, b) => s + b.count, 0)).toBe(pairs.length);
        },
      ),
    );
  });

  it("refuses a confidence outside [0, 1] and mismatched lengths", () => {
    expect(() => calibration([1.5], [true])).toThrow(/confidence 0: expected a number in \[0, 1\]/);
    expect(() => calibration([0.5], [])).toThrow(/1 confidences but 0 outcomes/);
  });
});

describe("readConfidenceColumns", () => {
  const text = [
    "-DOCSTART- -X- O O 1",
    "",
    "He PRP B-NP B-NP 0.99",
    "runs VBZ B-VP B-NP 0.6",
    "",
    "Go VB B-VP B-VP 1",
    "",
  ].join("\n");

  it("reads gold, prediction and confidence, and keeps the file without its last column", () => {
    const columns = readConfidenceColumns(text, "t.conll");
    expect(columns.gold).toEqual(["B-NP", "B-VP", "B-VP"]);
    expect(columns.predicted).toEqual(["B-NP", "B-NP", "B-VP"]);
    expect(Array.from(columns.confidence)).toEqual([0.99, 0.6, 1]);
    expect(columns.labelText).toBe(
      [
        "-DOCSTART- -X- O O 1",
        "",
        "He PRP B-NP B-NP",
        "runs VBZ B-VP B-NP",
        "",
        "Go VB B-VP B-VP",
        "",
      ].join("\n"),
    );
    const c = calibrationOfColumns(columns);
    expect(c.accuracy).toBeCloseTo(2 / 3, 12);
    expect(formatCalibrationReport(c)).toMatch(
      /^calibration of 3 token confidences \(15 equal-width bins\): ECE /,
    );
  });

  it("keeps each line's own delimiters (conlleval -d reads the rest)", () => {
    const tabbed = readConfidenceColumns("He\tPRP\tB-NP\tB-NP\t0.99\t\n", "t.tsv");
    expect(tabbed.labelText).toBe("He\tPRP\tB-NP\tB-NP\n");
    expect(tabbed.gold).toEqual(["B-NP"]);
  });

  it("a missing or non-probability last column is an error at its line", () => {
    const bad = () => readConfidenceColumns("He PRP B-NP B-NP\n", "p.conll");
    expect(bad).toThrow(DataFormatError);
    expect(bad).toThrow(
      /^p\.conll:1: expected the last column to be the predicted label's probability/,
    );
    expect(() => readConfidenceColumns("\nx 0.5\n", "p.conll")).toThrow(
      /^p\.conll:2: expected gold/,
    );
    expect(() => readConfidenceColumns("x B B 1.2\n", "p.conll")).toThrow(/got "1\.2"/);
  });
});

describe("endsInConfidences", () => {
  it("tells --marginals output from labels alone, 0/1 labels and -DOCSTART- lines included", () => {
    expect(endsInConfidences("-DOCSTART- O O\n\nJohn B-PER B-PER 0.93\nlives O O 1\n")).toBe(true);
    expect(endsInConfidences("John B-PER B-PER 1e-05\n")).toBe(true);
    expect(endsInConfidences("John B-PER B-PER\nlives O O\n")).toBe(false);
    expect(endsInConfidences("a x 0 1\nb y 1 0\n")).toBe(false);
    expect(endsInConfidences("a x B 0.5\nb y O 1.5\n")).toBe(false);
  });
});

describe("reliabilityDiagramSvg", () => {
  it("is a self-contained SVG with a bar per non-empty bin and the figures in its title", () => {
    const c = calibration([0.1, 0.55, 0.95, 0.97], [false, true, true, true]);
    const svg = reliabilityDiagramSvg(c, "a <test>");
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg.trimEnd().endsWith("</svg>")).toBe(true);
    expect(svg).toContain("a &lt;test&gt;");
    expect(svg).toContain(`ECE ${c.ece.toFixed(4)}`);
    // Three non-empty bins: an accuracy bar and a token count each, with their tooltips.
    expect(svg.match(/<title>/g)).toHaveLength(6);
    expect(svg).not.toMatch(/NaN|<script/);
  });
});
