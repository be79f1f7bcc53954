import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lineChartSvg } from "../svg.js";
import { ad3Bench, decodeRun, encodeRun, graphTargets } from "./ad3.js";
import { ad3CurveChart, ad3Markdown } from "./ad3-report.js";
import type { GraphRow, LagrangeRun, SystemRun } from "./ad3-results.js";

// Two small graphs of our own, one per format: logic factors over binary variables, and a
// frustrated cycle of three pairwise tables (its LP relaxation is not tight).
const FG = [
  "4",
  "3",
  "0.5",
  "-0.2",
  "0.3",
  "0.1",
  "XOR 3 1 2 3",
  "ATMOSTONE 2 3 4",
  "OR 2 -1 4",
  "",
];
const UAI = [
  "MARKOV",
  "3",
  "2 2 2",
  "4",
  "1 0",
  "2 0 1",
  "2 1 2",
  "2 0 2",
  "",
  "2",
  "0.6 0.4",
  "4",
  "0.2 2.0 2.0 0.2",
  "4",
  "0.2 2.0 2.0 0.2",
  "4",
  "0.2 2.0 2.0 0.2",
  "",
];

describe("bench ad3, AD3's graphs section", () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "lagrange-bench-ad3-"));
    await writeFile(join(dir, "logic.fg"), FG.join("\n"));
    await writeFile(join(dir, "cycle.uai"), UAI.join("\n"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("says so when the graphs are not there", async () => {
    const result = await ad3Bench({ dataDir: join(dir, "absent"), sections: ["graphs"] });
    expect(result.graphs?.skipped).toMatch(/not at/);
    expect(result.tasks).toBeNull();
    expect(ad3Markdown(result)).toMatch(/Skipped: AD3's graphs are not at/);
  });

  it("runs Lagrange and, where g++ is, ad3_multi on the same files; same LP-MAP value", async () => {
    // No task in the tasks section: ad3-tasks.test.ts runs one; here only the report's wiring.
    const result = await ad3Bench({
      dataDir: dir,
      sections: ["graphs", "tasks"],
      minSampleMs: 1,
      tasks: { tasks: [] },
    });
    const section = result.graphs!;
    expect(section.skipped).toBeNull();
    expect(section.rows.map((r) => r.graph)).toEqual(["cycle.uai", "logic.fg"]);
    // cycle.uai: three 2×2 tables over 4 binary states each and one XOR of 2 per variable.
    expect(section.rows.map((r) => [r.problemFactors, r.edges])).toEqual([
      [6, 18],
      [3, 7],
    ]);
    for (const row of section.rows) {
      const L = row.lagrange as SystemRun;
      expect(row.nsPerIterationEdgeLagrange).toBeCloseTo(
        (1e9 * L.cpuSeconds) / L.iterations! / row.edges!,
        6,
      );
    }
    for (const row of section.rows) {
      expect("failed" in row.lagrange).toBe(false);
      const chart = ad3CurveChart(row);
      expect(chart?.series[0]?.name).toBe("Lagrange dual");
      expect(lineChartSvg(chart!)).toContain("<polyline");
    }
    const markdown = ad3Markdown(result);
    expect(markdown).toContain("| logic.fg | 4 | 3 | 7 |");
    expect(markdown).toContain("| ns / it·edge |");
    expect(markdown).toContain("**Targets (graphs)**");
    expect(markdown).toContain("## The project's tasks");
    if (section.peer.kind === "skipped") {
      // No g++ here: the Lagrange columns are still there and the peer's say why not.
      expect(markdown).toContain("C++ columns not run");
      expect(section.rows.every((r) => r.ad3 === null && r.timeRatioAd3 === null)).toBe(true);
      return;
    }
    for (const row of section.rows) {
      expect(row.ad3 !== null && !("failed" in row.ad3)).toBe(true);
      expect(row.psdd !== null && !("failed" in row.psdd)).toBe(true);
      expect(row.lpRelativeDifference).toBeLessThan(1e-4);
      const A = row.ad3 as SystemRun;
      expect(row.nsPerIterationEdgeAd3).toBe(
        A.cpuSeconds > 0 ? (1e9 * A.cpuSeconds) / A.iterations! / row.edges! : null,
      );
    }
    expect(markdown).toMatch(/multi-factor graphs both ran \([012]\)/);
    // Building ad3_multi on a fresh clone takes a while on a busy machine.
  }, 300_000);

  it("leaves the C++ columns out, and says why, with the peer turned off", async () => {
    const result = await ad3Bench({
      dataDir: dir,
      graphs: ["logic.fg"],
      sections: ["graphs"],
      peer: false,
      minSampleMs: 1,
      rounds: 2,
    });
    const section = result.graphs!;
    expect(section.peer).toEqual({ kind: "skipped", reason: "turned off (--no-peer)" });
    expect(section.rows).toHaveLength(1);
    expect(section.rows[0]?.ad3).toBeNull();
    // Two rounds of at least one solve each, one run reported: their median time.
    const L = section.rows[0]?.lagrange;
    expect(L !== undefined && "samples" in L && L.samples >= 2 && L.cpuSeconds >= 0).toBe(true);
    expect(section.settings.rounds).toBe(2);
    expect(section.targets.every((t) => t.met === null)).toBe(true);
    expect(ad3Markdown(result)).toContain("**C++ columns not run**: turned off (--no-peer).");
  });
});

describe("bench ad3, a run from a process of its own", () => {
  it("comes back as it was sent, its NaN and infinite values included", () => {
    const run: LagrangeRun = {
      seconds: 0.5,
      cpuSeconds: Number.NaN,
      samples: 3,
      iterations: 7,
      dual: Number.POSITIVE_INFINITY,
      primal: null,
      gap: null,
      status: "converged",
      trace: [{ seconds: 0.1, iteration: 1, dual: 2.5, primal: Number.NEGATIVE_INFINITY }],
      integerPrimal: Number.NEGATIVE_INFINITY,
      certified: false,
      compileSeconds: 0.001,
    };
    expect(decodeRun(encodeRun(run))).toEqual(run);
  });
});

describe("bench ad3, the graphs' targets", () => {
  const row = (
    graph: string,
    problemFactors: number,
    timeRatioAd3: number | null,
    timeRatioPsdd: number | null,
  ): GraphRow => ({
    graph,
    format: "ad3",
    variables: 10,
    factors: problemFactors,
    problemFactors,
    edges: 20,
    lagrange: { failed: "not needed here" },
    ad3: null,
    psdd: null,
    timeRatioAd3,
    timeRatioPsdd,
    nsPerIterationEdgeLagrange: null,
    nsPerIterationEdgeAd3: null,
    lpRelativeDifference: null,
  });

  it("takes the median and the worst over multi-factor graphs, PSDD over the graphs it ran", () => {
    const targets = graphTargets([
      row("one.fg", 1, 9, 0.5),
      row("a.fg", 4, 1.2, 0.9),
      row("b.fg", 4, 2, 2),
      row("c.fg", 4, 3.5, null),
      row("d.fg", 4, 0.8, 1.5),
      row("e.fg", 4, null, null),
    ]);
    expect(targets.map((t) => [t.value, t.met])).toEqual([
      ["—", null],
      // 0.8, 1.2, 2, 3.5: the single-factor graph's 9× and the unmeasured one are left out.
      ["1.60×", false],
      ["max 3.50× (c.fg); 1 of 4 above 3×", false],
      ["2 of 4 graphs", true],
    ]);
    expect(targets[1]?.name).toContain("(4)");
    const fast = graphTargets([row("a.fg", 2, 1.4, 2), row("b.fg", 2, 1.5, 3)]);
    expect(fast.map((t) => t.met)).toEqual([null, true, true, false]);
  });
});
