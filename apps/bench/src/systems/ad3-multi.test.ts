import { describe, expect, it } from "vitest";
import { parseAd3MultiOutput, patchAd3MultiSource, repeatGraph } from "./ad3-multi.js";

// Captured from ad3_multi (AD3 at 22131c7, built with the bench's hooks), lines shortened where
// marked; the tabs are ad3_multi's.
const AD3_TRACE = [
  "Read 321 variables and 32 factors.",
  "Running 1000 iterations of ad3 (eta = 0.10000000000000001)...",
  "Iteration = 50\tDual obj = 25.932381347509111\tPrimal rel obj = -1e+100\tPrimal obj = -1e+100\tDual residual = 0.0015498963653463361\tPrimal residual = 0.0056002685546527294\tBest dual obj = 25.932381347509111\tBest primal rel obj = -1e+100\tBest primal obj = -1e+100\tCached factors = 0\teta = 0.050000000000000003\tChanged eta = false\tTime = 0 sec.",
  "Iteration = 348\tDual obj = 25.815022533164555\tPrimal rel obj = 25.815076067614388\tPrimal obj = -1e+100\tDual residual = 9.644623799677498e-07\tPrimal residual = 9.9562908928863749e-07\tBest dual obj = 25.815022533164555\tBest primal rel obj = 25.815076067614388\tBest primal obj = -1e+100\tCached factors = 0.75\teta = 0.050000000000000003\tChanged eta = false\tTime = 0.001 sec.",
  "Solution value after 348 iterations (AD3) = 25.815076067614388",
  "Took 0.001 sec.",
  "Solution is fractional.",
  "Elapsed time: 0.001 sec.",
  "",
].join("\n");

const PSDD_TRACE = [
  "Read 321 variables and 32 factors.",
  "Running 1000 iterations of psdd (eta = 0.10000000000000001)...",
  "Iteration = 50\tDual obj = 26.170967745355345\tPrimal rel obj = 26.820300899999868\tPrimal residual = 0.019188238911333404\tBest dual obj = 26.169492697295706\tBest primal rel obj = 26.820300899999868\tCached factors = 0\teta = 0.014002800840280098\tTime = 0 sec.",
  "Iteration = 950\tDual obj = 25.824238290588308\tPrimal rel obj = 26.145201179999876\tPrimal residual = 0.047001394395384234\tBest dual obj = 25.818772870758409\tBest primal rel obj = 26.820300899999868\tCached factors = 0\teta = 0.0032427221756276079\tTime = 0.002 sec.",
  "Solution value after 1000 iterations (Projected Subgradient) = 25.829747009999867",
  "Took 0.002 sec.",
  "Solution is only approximate.",
  "Elapsed time: 0.002 sec.",
  "",
].join("\n");

// Two copies of grid3x3.uai in one file, solve-time hook on, verbosity 0.
const TIMING = [
  "Read 9 multi-variables and 21 factors.",
  "Running 1000 iterations of ad3 (eta = 0.1)...",
  "Solve seconds = 0.00088599999999999996",
  "Solve CPU seconds = 0.00091100000000000003",
  "Read 9 multi-variables and 21 factors.",
  "Running 1000 iterations of ad3 (eta = 0.10000000000000001)...",
  "Solve seconds = 0.00086899999999999998",
  "Solve CPU seconds = 0.00087200000000000005",
  "Elapsed time: 0 sec.",
  "",
].join("\n");

// example2.fg with --exact=true: one AD3 run (the root is integral), then the ILP's value.
const EXACT = [
  "Read 3 variables and 2 factors.",
  "Running 1000 iterations of ad3 (eta = 0.10000000000000001)...",
  "Iteration = 10\tDual obj = 1.25\tPrimal rel obj = 1.25\tPrimal obj = -1e+100\tDual residual = 0\tPrimal residual = 0\tBest dual obj = 1.25\tBest primal rel obj = 1.25\tBest primal obj = -1e+100\tCached factors = 0\teta = 0.10000000000000001\tChanged eta = false\tTime = 0 sec.",
  "Solution value after 10 iterations (AD3) = 1.25",
  "Took 0 sec.",
  "Solution is integer.",
  "Solution value for AD3 ILP: 1.25",
  "Elapsed time: 0 sec.",
  "",
].join("\n");

describe("parseAd3MultiOutput", () => {
  it("reads AD3's trace: iterations run, final value, best dual, residuals, unset primals", () => {
    const { graphs, elapsedSeconds } = parseAd3MultiOutput(AD3_TRACE);
    expect(elapsedSeconds).toBe(0.001);
    expect(graphs).toHaveLength(1);
    const g = graphs[0]!;
    expect(g).toMatchObject({
      algorithm: "ad3",
      variables: 321,
      factors: 32,
      // Broke out of the loop at t = 348 (0-based): 349 iterations ran.
      iterations: 349,
      value: 25.815076067614388,
      bestDual: 25.815022533164555,
      status: "fractional",
      tookSeconds: 0.001,
      solveSeconds: null,
      solveCpuSeconds: null,
    });
    expect(g.trace).toHaveLength(2);
    expect(g.trace[0]).toEqual({
      iteration: 50,
      seconds: 0,
      dual: 25.932381347509111,
      primal: null,
      bestDual: 25.932381347509111,
      bestPrimal: null,
      primalResidual: 0.0056002685546527294,
      dualResidual: 0.0015498963653463361,
      eta: 0.050000000000000003,
    });
    expect(g.trace[1]?.primal).toBe(25.815076067614388);
    expect(g.trace[1]?.seconds).toBe(0.001);
  });

  it("reads PSDD's trace (no dual residual) and counts a run to the cap as the cap", () => {
    const g = parseAd3MultiOutput(PSDD_TRACE).graphs[0]!;
    expect(g.algorithm).toBe("psdd");
    expect(g.iterations).toBe(1000);
    expect(g.status).toBe("approximate");
    expect(g.value).toBe(25.829747009999867);
    expect(g.bestDual).toBe(25.818772870758409);
    expect(g.trace.map((p) => p.dualResidual)).toEqual([null, null]);
    expect(g.trace[1]?.eta).toBe(0.0032427221756276079);
  });

  it("reads one solve time per graph of a multi-graph file", () => {
    const { graphs, elapsedSeconds } = parseAd3MultiOutput(TIMING);
    expect(graphs.map((g) => g.solveSeconds)).toEqual([0.000886, 0.000869]);
    expect(graphs.map((g) => g.solveCpuSeconds)).toEqual([0.000911, 0.000872]);
    expect(graphs.map((g) => [g.variables, g.factors])).toEqual([
      [9, 21],
      [9, 21],
    ]);
    expect(graphs.every((g) => g.iterations === null && g.trace.length === 0)).toBe(true);
    expect(elapsedSeconds).toBe(0);
  });

  it("takes the ILP's value in exact mode", () => {
    const g = parseAd3MultiOutput(EXACT).graphs[0]!;
    expect(g.value).toBe(1.25);
    expect(g.iterations).toBe(11);
    expect(g.status).toBe("integer");
  });

  it("finds no graph in a usage message", () => {
    const usage = "Usage: ad3_multi --format=[ad3(*)|uai] --file_graphs=[IN]\n";
    expect(parseAd3MultiOutput(usage)).toEqual({ graphs: [], elapsedSeconds: null });
  });
});

describe("patchAd3MultiSource", () => {
  const source = [
    "#include <math.h>",
    "      }",
    '      cout << "Running " << niters << " iterations of "',
    "      gettimeofday(&end, NULL);",
    "      time_ddadmm += diff_ms(end,start);",
    "",
  ].join("\n");

  it("adds the verbosity hook before the run and the solve time after the clock read", () => {
    const lines = patchAd3MultiSource(source).split("\n");
    expect(lines.slice(0, 2)).toEqual(["#include <cstdlib>", "#include <ctime>"]);
    const running = lines.findIndex((l) => l.includes('cout << "Running "'));
    expect(lines[running - 1]).toMatch(
      /^ {6}clock_t lagrange_cpu_start = clock\(\); if \(getenv\("LAGRANGE_AD3_VERBOSITY"\)/,
    );
    const timed = lines.findIndex((l) => l.includes("time_ddadmm +="));
    expect(lines[timed + 1]).toMatch(/^ {6}if \(getenv\("LAGRANGE_AD3_SOLVE_TIME"\)/);
    expect(lines).toHaveLength(source.split("\n").length + 4);
  });

  it("refuses a source without the lines it hooks", () => {
    expect(() => patchAd3MultiSource("int main() {}\n")).toThrow(/22131c7/);
  });
});

describe("repeatGraph", () => {
  it("keeps a .fg graph's lines and ends each copy with a blank line, as ad3_multi reads it", () => {
    // 2 variables, 1 factor; the stray last line (as in srl_fract_003.fg) is dropped.
    const fg = "2\n1\n0.5\n-1\nXOR 2 1 2\nSTRAY3\n";
    expect(repeatGraph(fg, 2, "ad3")).toBe(
      "2\n1\n0.5\n-1\nXOR 2 1 2\n\n2\n1\n0.5\n-1\nXOR 2 1 2\n\n",
    );
  });

  it("separates UAI copies by a blank line", () => {
    expect(repeatGraph("MARKOV\n1\n2\n1\n1 0\n\n2\n0.5 0.5\n\n\n", 2, "uai")).toBe(
      "MARKOV\n1\n2\n1\n1 0\n\n2\n0.5 0.5\n\nMARKOV\n1\n2\n1\n1 0\n\n2\n0.5 0.5\n\n",
    );
  });

  it("refuses a .fg text shorter than its header says", () => {
    expect(() => repeatGraph("3\n1\n0.5\n", 2, "ad3")).toThrow(/expected a \.fg graph/);
  });
});
