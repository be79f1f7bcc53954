import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { RecordingGraph, valueTable } from "../testing/pseudo-boolean-oracles.js";
import { assignmentFromCut, buildCutGraph } from "./cut-graph.js";
import { parsePbf } from "./pbf-format.js";
import { labelGroups, reduceToQuadratic } from "./reduce.js";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../../../..");
const fixtureDir = join(repoRoot, "..", "shared", "fixtures", "maxflow");
const haveFixtures = existsSync(join(fixtureDir, "expected.json"));

interface SeqExpectation {
  readonly flow: number;
  readonly params: {
    readonly tokens: number;
    readonly labels: number;
    readonly variables: number;
    readonly pairwise_terms: number;
    readonly patterns: number;
  };
  readonly energy_offset: number;
  readonly slave_min_energy: number;
  readonly slave_max_objective: number;
  readonly slave_num_optima?: number;
  readonly cut_largest_source_side?: string;
}

const expected: Record<string, SeqExpectation> = haveFixtures
  ? (
      JSON.parse(readFileSync(join(fixtureDir, "expected.json"), "utf8")) as {
        instances: Record<string, SeqExpectation>;
      }
    ).instances
  : {};
const names = haveFixtures
  ? readdirSync(fixtureDir)
      .filter((f) => f.endsWith(".pbf.txt"))
      .map((f) => f.slice(0, -".pbf.txt".length))
      .sort()
  : [];
const needs = `(needs ${fixtureDir})`;

function load(name: string) {
  const file = `${name}.pbf.txt`;
  return parsePbf(readFileSync(join(fixtureDir, file), "utf8"), file);
}

/** Reads a `.graph.txt` fixture into the recording graph (to check the test's own max-flow). */
function readGraph(name: string): RecordingGraph {
  const lines = readFileSync(join(fixtureDir, `${name}.graph.txt`), "utf8")
    .trimEnd()
    .split("\n");
  const [n, m] = lines[0]!.split(" ").map(Number) as [number, number];
  const graph = new RecordingGraph();
  graph.addNodes(n);
  for (let l = 1; l < lines.length; l++) {
    const f = lines[l]!.split(" ");
    if (l <= m) graph.addEdge(+f[0]!, +f[1]!, +f[2]!, +f[3]!);
    else graph.addTerminalWeights(+f[1]!, +f[2]!, +f[3]!);
  }
  return graph;
}

describe("the seq_* pseudo-Boolean fixtures", () => {
  it.skipIf(!haveFixtures)(`parse, with the sizes expected.json lists ${needs}`, () => {
    const all = ["seq_n3_L3", "seq_n5_L4", "seq_n40_L13", "seq_n400_L21", "seq_n4000_L21"];
    expect(names).toEqual(all.sort());
    for (const name of names) {
      const { energy, numVariables, numPairs, numTerms } = load(name);
      const { params } = expected[name]!;
      expect([numVariables, numPairs, numTerms], name).toEqual([
        params.variables,
        params.pairwise_terms,
        params.patterns,
      ]);
      expect(energy.numVariables).toBe(params.tokens * params.labels);
    }
  });

  it.skipIf(!haveFixtures)(
    `small ones: min energy by enumeration = slave_min_energy = −slave_max_objective ${needs}`,
    () => {
      for (const name of ["seq_n3_L3", "seq_n5_L4"]) {
        const { energy, numVariables } = load(name);
        const e = expected[name]!;
        const table = valueTable(numVariables, (z) => energy.evaluate(z));
        let min = Number.POSITIVE_INFINITY;
        let optima = 0;
        for (const value of table) {
          if (value < min) {
            min = value;
            optima = 0;
          }
          if (value === min) optima++;
        }
        expect(min, name).toBe(e.slave_min_energy);
        expect(-min, name).toBe(e.slave_max_objective);
        expect(optima, name).toBe(e.slave_num_optima);
      }
    },
  );

  it.skipIf(!haveFixtures)(
    `small ones: the reduced graph's minimum cut (every cut enumerated) + constant = slave_min_energy, at the fixture's maximiser ${needs}`,
    () => {
      for (const name of ["seq_n3_L3", "seq_n5_L4"]) {
        const { energy, numVariables } = load(name);
        const e = expected[name]!;
        const r = reduceToQuadratic(energy);
        expect(r.exact).toBe(true);
        const graph = new RecordingGraph();
        const layout = buildCutGraph(r.quadratic, graph);
        expect(graph.numNodes).toBeLessThanOrEqual(21);
        const cut = graph.bruteForceMinCut();
        expect(cut.value + layout.constant, name).toBe(e.slave_min_energy);
        const z = assignmentFromCut(layout, (node) => cut.sink[node] === 1, numVariables);
        expect(energy.evaluate(z)).toBe(e.slave_min_energy);
        // The maximiser is unique: it is the fixture's cut, z_v = 1 ⇔ 'T'.
        const line = e.cut_largest_source_side!.slice(0, numVariables);
        expect(Array.from(z, (b) => (b === 1 ? "T" : "S")).join(""), name).toBe(line);
      }
    },
  );

  it.skipIf(!haveFixtures)(
    `all: max-flow of the reduced graph + constant = slave_min_energy, with and without one-hot groups ${needs}`,
    () => {
      for (const name of names) {
        const e = expected[name]!;
        // The test's own max-flow agrees with the fixture's graph first.
        expect(readGraph(name).maxFlow(), `${name}.graph.txt`).toBe(e.flow);
        const { energy } = load(name);
        for (const groups of [undefined, labelGroups(e.params.tokens, e.params.labels)]) {
          const r = reduceToQuadratic(energy, groups === undefined ? {} : { oneHotGroups: groups });
          // Every weight of F is positive, so E's terms are negative: no ψ is needed.
          expect(r.exact).toBe(true);
          expect(r.psi).toEqual([]);
          const graph = new RecordingGraph();
          const layout = buildCutGraph(r.quadratic, graph);
          expect(graph.maxFlow() + layout.constant, name).toBe(e.slave_min_energy);
        }
      }
    },
  );
});
