import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { MaxflowGraph, Segment } from "./graph.js";
import {
  buildMaxflowGraph,
  cutCapacity,
  type MaxflowInstance,
  parseMaxflowCut,
  parseMaxflowGraph,
  parseMaxflowUpdates,
  terminalCapacities,
} from "./graph-format.js";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../../../..");
const fixtureDir = join(repoRoot, "..", "shared", "fixtures", "maxflow");
const present = existsSync(join(fixtureDir, "expected.json"));

interface Expected {
  readonly n: number;
  readonly m: number;
  readonly flow: number;
  readonly cut_unique: boolean;
  readonly sha256_graph: string;
  readonly update_flows?: readonly number[];
}

const expected: Record<string, Expected> = present
  ? (
      JSON.parse(readFileSync(join(fixtureDir, "expected.json"), "utf8")) as {
        instances: Record<string, Expected>;
      }
    ).instances
  : {};

function read(name: string): { instance: MaxflowInstance; text: string } {
  const file = join(fixtureDir, `${name}.graph.txt`);
  const text = readFileSync(file, "utf8");
  return { instance: parseMaxflowGraph(text, file), text };
}

const same = (a: Uint8Array, b: Uint8Array) =>
  a.length === b.length && a.every((x, i) => x === b[i]);
const subset = (a: Uint8Array, b: Uint8Array) => a.every((x, i) => x <= b[i]!);

describe.skipIf(!present)(
  `max-flow fixtures${present ? "" : ` — skipped: ${fixtureDir} is missing`}`,
  () => {
    for (const [name, want] of Object.entries(expected)) {
      it(`${name}: flow, both canonical cuts, cut capacity = flow`, () => {
        const { instance, text } = read(name);
        expect(createHash("sha256").update(text).digest("hex")).toBe(want.sha256_graph);
        expect([instance.n, instance.m]).toEqual([want.n, want.m]);
        const graph = buildMaxflowGraph(instance);
        const flow = graph.maxflow();
        expect(flow).toBe(want.flow);
        const cuts = parseMaxflowCut(
          readFileSync(join(fixtureDir, `${name}.cut.txt`), "utf8"),
          instance.n,
          `${name}.cut.txt`,
        );
        const smallest = graph.minCut("smallest");
        const largest = graph.minCut("largest");
        // The search trees end as the residual reachability sets, so the cuts are the canonical
        // ones character for character (the fixture's lines 1 and 2).
        expect(same(smallest, cuts.smallest)).toBe(true);
        expect(same(largest, cuts.largest)).toBe(true);
        expect(subset(cuts.smallest, smallest) && subset(largest, cuts.largest)).toBe(true);
        expect(cutCapacity(instance, smallest)).toBe(flow);
        expect(cutCapacity(instance, largest)).toBe(flow);
        expect(same(smallest, largest)).toBe(want.cut_unique);
        for (let i = 0; i < instance.n; i += Math.max(1, Math.floor(instance.n / 97))) {
          expect(graph.whatSegment(i, Segment.Sink) === Segment.Source).toBe(smallest[i] === 1);
          expect(graph.whatSegment(i, Segment.Source) === Segment.Source).toBe(largest[i] === 1);
        }
      });

      const flows = want.update_flows;
      if (flows === undefined) continue;
      it(`${name}: ${flows.length} update rounds with search-tree reuse and from scratch`, () => {
        const { instance } = read(name);
        const file = join(fixtureDir, `${name}.updates.txt`);
        const rounds = parseMaxflowUpdates(readFileSync(file, "utf8"), instance.n, file);
        expect(rounds.length).toBe(flows.length);
        const reused = buildMaxflowGraph(instance);
        expect(reused.maxflow()).toBe(want.flow);
        const fresh = new MaxflowGraph({ nodes: instance.n, edges: instance.m });
        const terminals = terminalCapacities(instance);
        const inRound: MaxflowInstance = {
          ...instance,
          terminalNode: new Int32Array(0),
          terminalSource: new Float64Array(0),
          terminalSink: new Float64Array(0),
        };
        rounds.forEach((round, r) => {
          for (let k = 0; k < round.node.length; k++) {
            const i = round.node[k]!;
            reused.setTerminalWeights(i, round.capSource[k]!, round.capSink[k]!);
            terminals.source[i] = round.capSource[k]!;
            terminals.sink[i] = round.capSink[k]!;
          }
          const flow = reused.maxflow(true, r % 2 === 1);
          expect(flow, `round ${r + 1}, reuse`).toBe(flows[r]);

          buildMaxflowGraph(inRound, fresh);
          for (let i = 0; i < instance.n; i++) {
            if (terminals.source[i] !== 0 || terminals.sink[i] !== 0) {
              fresh.addTerminalWeights(i, terminals.source[i]!, terminals.sink[i]!);
            }
          }
          expect(fresh.maxflow(), `round ${r + 1}, from scratch`).toBe(flows[r]);
          // Reuse ends in the same canonical cuts as a fresh solve.
          for (const side of ["smallest", "largest"] as const) {
            const a = reused.minCut(side);
            expect(same(a, fresh.minCut(side)), `round ${r + 1}, ${side} cut`).toBe(true);
            expect(cutCapacity(instance, a, terminals)).toBe(flows[r]);
          }
        });
      });
    }
  },
);
