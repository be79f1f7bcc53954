import { lagrangeErrorCode } from "@lagrange/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  buildMaxflowGraph,
  cutCapacity,
  MaxflowFormatError,
  type MaxflowInstance,
  parseMaxflowCut,
  parseMaxflowGraph,
  parseMaxflowUpdates,
  terminalCapacities,
} from "./graph-format.js";

function format(instance: MaxflowInstance): string {
  const lines = [`${instance.n} ${instance.m}`];
  for (let e = 0; e < instance.m; e++) {
    lines.push(
      `${instance.edgeFrom[e]} ${instance.edgeTo[e]} ${instance.edgeCap[e]} ${instance.edgeRevCap[e]}`,
    );
  }
  for (let k = 0; k < instance.terminalNode.length; k++) {
    lines.push(
      `t ${instance.terminalNode[k]} ${instance.terminalSource[k]} ${instance.terminalSink[k]}`,
    );
  }
  return `${lines.join("\n")}\n`;
}

/** The error a parse throws, checked to be a MaxflowFormatError whose message starts file:line. */
function failure(parse: () => unknown): MaxflowFormatError {
  try {
    parse();
  } catch (error) {
    expect(error).toBeInstanceOf(MaxflowFormatError);
    const e = error as MaxflowFormatError;
    expect(lagrangeErrorCode(e)).toBe("bad-input");
    expect(e.message.startsWith(`${e.file}:${e.line}: `)).toBe(true);
    return e;
  }
  throw new Error("expected a MaxflowFormatError");
}

describe("parseMaxflowGraph", () => {
  it("reads edges and terminal lines in file order, with exact dyadic decimals", () => {
    const g = parseMaxflowGraph("3 2\n0 1 3 4\n2 1 0.5 99.90625\nt 0 1 5\nt 2 7 0\n", "g.txt");
    expect(g.n).toBe(3);
    expect(g.m).toBe(2);
    expect([...g.edgeFrom]).toEqual([0, 2]);
    expect([...g.edgeTo]).toEqual([1, 1]);
    expect([...g.edgeCap]).toEqual([3, 0.5]);
    expect([...g.edgeRevCap]).toEqual([4, 99.90625]);
    expect([...g.terminalNode]).toEqual([0, 2]);
    expect([...g.terminalSource]).toEqual([1, 7]);
    expect([...g.terminalSink]).toEqual([5, 0]);
    // 2^40 is exact; so is a flow near 2^53.
    const big = parseMaxflowGraph("1 0\nt 0 1099511627776 4503599627370495\n");
    expect(big.terminalSource[0]).toBe(2 ** 40);
    expect(buildMaxflowGraph(big).maxflow()).toBe(2 ** 40);
  });

  it("accepts CRLF line ends and a missing final newline; repeated t lines add up", () => {
    const g = parseMaxflowGraph("2 1\r\n0 1 2 0\r\nt 0 3 0\r\nt 0 1 0\r\nt 1 0 9");
    expect([...terminalCapacities(g).source]).toEqual([4, 0]);
    expect(buildMaxflowGraph(g).maxflow()).toBe(2);
  });

  it("names the file and line of each problem", () => {
    const cases: [string, number, RegExp][] = [
      ["", 1, /empty file/],
      ["3\n", 1, /header `n m`/],
      ["0 0\n", 1, /at least one node/],
      ["2 -1\n", 1, /m: expected an integer/],
      ["2 1.5\n", 1, /m: expected an integer/],
      ["2 2\n0 1 1 1\n", 3, /ends after 1 of m = 2 edge lines/],
      ["2 1000000000\n0 1 1 1\n", 3, /ends after 1 of m = 1000000000 edge lines/],
      ["2 2\n0 1 1 1\nt 0 1 1\n", 3, /`t` line after only 1 of m = 2/],
      ["2 1\n0 1 x 1\n", 2, /cap: expected a non-negative decimal number, got "x"/],
      ["2 1\n0 1 -1 1\n", 2, /cap: expected a non-negative decimal/],
      ["2 1\n0 1 1e3 1\n", 2, /cap: expected a non-negative decimal/],
      ["2 1\n0 1 1 .5\n", 2, /rev_cap: expected a non-negative decimal/],
      ["2 1\n0 2 1 1\n", 2, /v: 2 is not a node \(the graph has n = 2\)/],
      ["2 1\n01 1 1 1\n", 2, /u: expected an integer/],
      ["2 1\n1 1 1 1\n", 2, /two distinct nodes/],
      ["2 1\n0  1 1 1\n", 2, /single spaces/],
      ["2 1\n0 1 1\n", 2, /edge line `u v cap rev_cap`/],
      ["2 1\n0 1 1 1\nt 0 1\n", 3, /terminal line/],
      ["2 1\n0 1 1 1\nt 0 1 1\nx 1 1 1\n", 4, /expected a terminal line/],
      ["2 1\n0 1 1 1\nt 5 1 1\n", 3, /i: 5 is not a node/],
      ["2 1\n0 1 1 1\nt 1 1 1\n\n", 4, /empty line at the end/],
    ];
    for (const [text, line, message] of cases) {
      const e = failure(() => parseMaxflowGraph(text, "dir/g.graph.txt"));
      expect(e.file).toBe("dir/g.graph.txt");
      expect([e.line, e.detail]).toEqual([line, expect.stringMatching(message)]);
    }
  });

  it("round-trips random instances, and every corruption is a MaxflowFormatError or a graph", () => {
    const instance = fc.integer({ min: 2, max: 6 }).chain((n) =>
      fc.record({
        n: fc.constant(n),
        edges: fc.array(
          fc.tuple(
            fc.integer({ min: 0, max: n - 1 }),
            fc.integer({ min: 1, max: n - 1 }),
            fc.integer({ min: 0, max: 640 }),
            fc.integer({ min: 0, max: 640 }),
          ),
          { maxLength: 8 },
        ),
        terminals: fc.uniqueArray(
          fc.tuple(
            fc.integer({ min: 0, max: n - 1 }),
            fc.integer({ min: 0, max: 99 }),
            fc.integer({ min: 0, max: 99 }),
          ),
          { selector: (t) => t[0], maxLength: n },
        ),
      }),
    );
    fc.assert(
      fc.property(
        instance,
        fc.nat(),
        fc.constantFrom("", "x", " ", "\n", "-", ".", "9", "t"),
        (arb, where, insert) => {
          const terminals = [...arb.terminals].sort((a, b) => a[0] - b[0]);
          const g: MaxflowInstance = {
            n: arb.n,
            m: arb.edges.length,
            edgeFrom: Int32Array.from(arb.edges, (e) => e[0]),
            edgeTo: Int32Array.from(arb.edges, (e) => (e[0] + e[1]) % arb.n),
            edgeCap: Float64Array.from(arb.edges, (e) => e[2] / 64),
            edgeRevCap: Float64Array.from(arb.edges, (e) => e[3]),
            terminalNode: Int32Array.from(terminals, (t) => t[0]),
            terminalSource: Float64Array.from(terminals, (t) => t[1]),
            terminalSink: Float64Array.from(terminals, (t) => t[2]),
          };
          const text = format(g);
          expect(parseMaxflowGraph(text)).toEqual(g);
          const at = where % (text.length + 1);
          const corrupted = text.slice(0, at) + insert + text.slice(at + 1);
          try {
            const parsed = parseMaxflowGraph(corrupted, "fuzz.txt");
            const side = new Uint8Array(parsed.n);
            expect(cutCapacity(parsed, side)).toBeGreaterThanOrEqual(0);
          } catch (error) {
            expect(error).toBeInstanceOf(MaxflowFormatError);
            expect((error as Error).message).toMatch(/^fuzz\.txt:\d+: /);
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe("parseMaxflowCut", () => {
  it("reads the two source sides", () => {
    const cut = parseMaxflowCut("STTS\nSSTS\n", 4);
    expect([...cut.smallest]).toEqual([1, 0, 0, 1]);
    expect([...cut.largest]).toEqual([1, 1, 0, 1]);
  });

  it("names the file, line and column of a problem", () => {
    const cases: [string, number, RegExp][] = [
      ["", 1, /smallest source side/],
      ["STS\n", 2, /largest source side/],
      ["ST\nSS\n", 1, /expected 3 characters S or T, got 2/],
      ["STS\nSXS\n", 2, /column 2: expected S or T, got "X"/],
      ["STS\nSSS\nSSS\n", 3, /exactly two lines/],
    ];
    for (const [text, line, message] of cases) {
      const e = failure(() => parseMaxflowCut(text, 3, "c.cut.txt"));
      expect([e.file, e.line, e.detail]).toEqual([
        "c.cut.txt",
        line,
        expect.stringMatching(message),
      ]);
    }
  });
});

describe("parseMaxflowUpdates", () => {
  it("reads rounds of replaced terminal capacities", () => {
    const rounds = parseMaxflowUpdates("2\n1 2\nt 0 3 0\nt 1 0 0\n2 0\n", 2);
    expect(rounds).toHaveLength(2);
    expect([...rounds[0]!.node]).toEqual([0, 1]);
    expect([...rounds[0]!.capSource]).toEqual([3, 0]);
    expect([...rounds[0]!.capSink]).toEqual([0, 0]);
    expect(rounds[1]!.node.length).toBe(0);
  });

  it("names the file and line of a problem", () => {
    const cases: [string, number, RegExp][] = [
      ["", 1, /number of rounds/],
      ["x\n", 1, /R: expected an integer/],
      ["2\n1 1\nt 0 1 1\n", 4, /ends after 1 of R = 2 rounds/],
      ["1\n2 1\nt 0 1 1\n", 2, /expected the header of round 1, got round "2"/],
      ["1\n1 2\nt 0 1 1\n", 4, /round 1 ends after 1 of k = 2 lines/],
      ["1\n1 900000000\nt 0 1 1\n", 4, /round 1 ends after 1 of k = 900000000 lines/],
      ["1\n1 1\nu 0 1 1\n", 3, /starting with "t"/],
      ["1\n1 1\nt 9 1 1\n", 3, /i: 9 is not a node/],
      ["1\n1 1\nt 0 1 1\nextra\n", 4, /after the last of R = 1 rounds/],
    ];
    for (const [text, line, message] of cases) {
      const e = failure(() => parseMaxflowUpdates(text, 3, "u.updates.txt"));
      expect([e.file, e.line, e.detail]).toEqual([
        "u.updates.txt",
        line,
        expect.stringMatching(message),
      ]);
    }
  });
});
