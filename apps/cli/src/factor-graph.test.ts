import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectCleanExit, sha256, startCli, strayTemporaryFiles } from "./probe/cli-process.js";
import { run } from "./testing/run-cli.js";

const anchors = resolve(
  dirname(fileURLToPath(import.meta.url)),
  "../../../../shared/anchors/ad3/data",
);

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "lagrange-factor-graph-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/**
 * Four binary variables: XOR over 1..3, a PAIR rewarding 3 and 4 together. The MAP, by hand:
 * {3, 4} scores −0.2 − 0.5 + 2 = 1.3, above {2} alone (1) and {1} alone (0.5).
 */
const SMALL_FG = `4
2
0.5
1.0
-0.2
-0.5
XOR 3 1 2 3
PAIR 2 3 4 2.0
`;

/**
 * Two variables (3 and 2 states): the table over both favours (2, 1) with 5, variable 0's own
 * table favours state 2 with 4. The MAP: (2, 1), log 4 + log 5 = log 20.
 */
const SMALL_UAI = `MARKOV
2
3 2
2
1 0
2 0 1

3
1 2 4

6
1 1 1 1 1 5
`;

async function json(args: string[]): Promise<Record<string, unknown>> {
  const result = await run([...args, "--json"]);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as Record<string, unknown>;
}

describe("lagrange factor-graph", () => {
  it("solves a small .fg file and prints the summary, the MAP and ad3_multi's posteriors", async () => {
    const graph = join(dir, "small.fg");
    await writeFile(graph, SMALL_FG);
    const text = await run(["factor-graph", "--graph", graph]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain("variables   4 binary\n");
    expect(text.stdout).toContain("factors     2: XOR 1, PAIR 1\n");
    expect(text.stdout).toMatch(/\nprimal {6}1\.3 \(best assignment\)\n/);
    expect(text.stdout).toContain("certified   yes\n");

    const posteriors = join(dir, "small.posteriors");
    const summary = await json([
      "factor-graph",
      "--graph",
      graph,
      "--exact",
      "--posteriors",
      posteriors,
    ]);
    expect(summary).toMatchObject({
      format: "fg",
      variables: 4,
      factors: 2,
      factorsByType: { XOR: 1, PAIR: 1 },
      status: "optimal",
      certified: true,
      assignment: [0, 0, 1, 1],
      posteriors,
    });
    expect(summary.primal).toBeCloseTo(1.3, 9);
    expect(summary.dual).toBeCloseTo(1.3, 6);
    // ad3_multi's layout: one line per variable, a blank line, the (empty) additional block, a blank line.
    expect(readFileSync(posteriors, "utf8")).toBe("0\n0\n1\n1\n\n\n");
  });

  it("solves a small UAI file: the assignment is each variable's chosen state", async () => {
    const graph = join(dir, "small.uai");
    await writeFile(graph, SMALL_UAI);
    const summary = await json(["factor-graph", "--graph", graph, "--exact"]);
    expect(summary).toMatchObject({
      format: "uai",
      variables: 2,
      binaryVariables: 5,
      factorsByType: { UNARY: 1, DENSE: 1, XOR: 2 },
      certified: true,
      assignment: [2, 1],
    });
    expect(summary.primal).toBeCloseTo(Math.log(20), 9);

    // The format comes from --format when the name does not tell.
    const renamed = join(dir, "small-uai.txt");
    await writeFile(renamed, SMALL_UAI);
    expect(await json(["factor-graph", "--graph", renamed, "--format", "uai"])).toMatchObject({
      format: "uai",
      assignment: [2, 1],
    });
    const asFg = await run(["factor-graph", "--graph", renamed]);
    expect(asFg.code).toBe(3);
  });

  it("names file:line of a malformed file (exit 3) and refuses bad command lines (exit 2)", async () => {
    const graph = join(dir, "bad.fg");
    await writeFile(graph, SMALL_FG.replace("PAIR 2 3 4 2.0", "PAIR 2 3 x 2.0"));
    const bad = await run(["factor-graph", "--graph", graph]);
    expect(bad.code).toBe(3);
    expect(bad.stderr).toMatch(/^lagrange: .*bad\.fg:8: expected /);
    expect(bad.stderr).not.toMatch(/\n\s+at /);
    expect(bad.stdout).toBe("");

    const good = join(dir, "good.fg");
    await writeFile(good, SMALL_FG);
    for (const args of [
      ["factor-graph", "--graph", join(dir, "missing.fg")],
      ["factor-graph", "--graph", good, "--format", "xml"],
      ["factor-graph", "--graph", good, "--eta", "0"],
      ["factor-graph", "--graph", good, "--max-iterations", "0"],
      ["factor-graph", "--graph", good, "--posteriors", good],
      ["factor-graph", "--graph", good, "--posteriors", join(dir, "no", "such", "dir", "p.txt")],
    ]) {
      const result = await run(args);
      expect(result.code, args.join(" ")).toBe(2);
    }
    // The refused output path left the input as it was.
    expect(readFileSync(good, "utf8")).toBe(SMALL_FG);
  });

  it("finds the MAP of random small .fg graphs (--exact), against brute force", async () => {
    const factorTypes = ["XOR", "OR", "ATMOSTONE", "PAIR"] as const;
    const graphs = fc.record({
      potentials: fc.array(fc.integer({ min: -20, max: 20 }), { minLength: 2, maxLength: 6 }),
      factors: fc.array(
        fc.record({
          type: fc.constantFrom(...factorTypes),
          picks: fc.array(fc.nat(), { minLength: 2, maxLength: 4 }),
          score: fc.integer({ min: -20, max: 20 }),
        }),
        { maxLength: 4 },
      ),
    });
    await fc.assert(
      fc.asyncProperty(graphs, async ({ potentials, factors }) => {
        const n = potentials.length;
        const built = factors.map((f) => {
          const links = [...new Set(f.picks.map((p) => (p % n) + 1))];
          return f.type === "PAIR" || links.length < 2
            ? { type: "PAIR" as const, links: [1, 2], score: f.score / 10 }
            : { type: f.type, links, score: 0 };
        });
        const lines = [
          String(n),
          String(built.length),
          ...potentials.map((p) => String(p / 10)),
          ...built.map((f) =>
            f.type === "PAIR"
              ? `PAIR 2 ${f.links.join(" ")} ${f.score}`
              : `${f.type} ${f.links.length} ${f.links.join(" ")}`,
          ),
        ];
        const graph = join(dir, "random.fg");
        await writeFile(graph, `${lines.join("\n")}\n`);
        let best = Number.NEGATIVE_INFINITY;
        for (let mask = 0; mask < 1 << n; mask++) {
          const z = (i: number) => (mask >> (i - 1)) & 1;
          let score = 0;
          potentials.forEach((p, i) => {
            score += (p / 10) * z(i + 1);
          });
          for (const f of built) {
            const on = f.links.reduce((sum, i) => sum + z(i), 0);
            if (f.type === "PAIR") score += on === 2 ? f.score : 0;
            else if (f.type === "XOR" ? on !== 1 : f.type === "OR" ? on < 1 : on > 1)
              score = Number.NEGATIVE_INFINITY;
          }
          best = Math.max(best, score);
        }
        const summary = await json(["factor-graph", "--graph", graph, "--exact"]);
        if (best === Number.NEGATIVE_INFINITY) {
          expect(summary.primal).toBeNull();
          return;
        }
        expect(summary.certified).toBe(true);
        expect(summary.primal as number).toBeCloseTo(best, 6);
        // The assignment, in the file's terms, scores what the command says it does.
        const assignment = summary.assignment as number[];
        expect(assignment).toHaveLength(n);
        let own = 0;
        potentials.forEach((p, i) => {
          own += (p / 10) * assignment[i]!;
        });
        for (const f of built) {
          if (f.type === "PAIR" && f.links.every((i) => assignment[i - 1] === 1)) own += f.score;
        }
        expect(own).toBeCloseTo(best, 6);
      }),
      { numRuns: 40 },
    );
  });

  it.skipIf(!existsSync(anchors))(
    "reads AD3's own graphs: the same LP bound as ad3_multi on grid10x10 and srl_fract_001",
    async () => {
      // ad3_multi --eta=1 stops with a dual of 192.35985 and 25.81508 (residuals below 1e-6).
      const grid = await json(["factor-graph", "--graph", join(anchors, "grid10x10.f2.wrap.uai")]);
      expect(grid).toMatchObject({ variables: 100, binaryVariables: 200, status: "converged" });
      expect(Math.abs((grid.dual as number) - 192.35985) / 192.35985).toBeLessThan(1e-5);
      expect(grid.assignment as number[]).toHaveLength(100);
      const srl = await json(["factor-graph", "--graph", join(anchors, "srl_fract_001.fg")]);
      expect(srl).toMatchObject({ variables: 321, status: "converged" });
      expect(Math.abs((srl.dual as number) - 25.81508) / 25.81508).toBeLessThan(1e-5);
    },
  );
});

/** A UAI Ising grid (n × n, frustrated couplings): large enough that AD3 runs for seconds. */
function isingGrid(n: number): string {
  let seed = 7;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  const scopes: string[] = [];
  const tables: string[] = [];
  for (let i = 0; i < n * n; i++) {
    scopes.push(`1 ${i}`);
    tables.push(`2\n1 ${Math.exp(random() - 0.5).toFixed(4)}`);
  }
  for (let i = 0; i < n * n; i++) {
    for (const j of [i % n < n - 1 ? i + 1 : -1, i + n < n * n ? i + n : -1]) {
      if (j < 0) continue;
      const w = Math.exp(2 * (random() - 0.5));
      scopes.push(`2 ${i} ${j}`);
      tables.push(`4\n${w} ${1 / w} ${1 / w} ${w}`);
    }
  }
  const cardinalities = new Array<number>(n * n).fill(2).join(" ");
  return `MARKOV\n${n * n}\n${cardinalities}\n${scopes.length}\n${scopes.join("\n")}\n\n${tables.join("\n\n")}\n`;
}

describe("lagrange factor-graph and Ctrl-C", () => {
  it("stops with 130 in the middle of a solve, keeping the previous posteriors file", async () => {
    await writeFile(join(dir, "grid.uai"), isingGrid(40));
    const previous = join(dir, "grid.posteriors");
    await writeFile(previous, "the previous posteriors\n");
    const hash = sha256(previous);
    const running = startCli(
      [
        "factor-graph",
        "--graph",
        "grid.uai",
        "--max-iterations",
        "100000000",
        "--tolerance",
        "0",
        "--posteriors",
        "grid.posteriors",
      ],
      { cwd: dir },
    );
    await running.stderrMatches(/solving grid\.uai with AD3/);
    await new Promise((done) => setTimeout(done, 200));
    running.child.kill("SIGINT");
    const result = await running.finished;
    expectCleanExit(result, 130);
    expect(result.stderr).toMatch(/^lagrange: stopped by SIGINT; /m);
    expect(result.stdout).toBe("");
    expect(sha256(previous)).toBe(hash);
    expect(strayTemporaryFiles(dir)).toEqual([]);
  }, 60_000);
});
