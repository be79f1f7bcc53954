/**
 * Decoders, plug-ins and their messages (issue 28, slice E), through the real binary: absurd
 * numeric options for every decoder (a usage error naming the option and its range, never an
 * "internal error"), the ILP time limit bounding a whole sentence (two-phase with a τ that prunes
 * nothing), the exact decoder's conflict set on an infeasible sentence (fast, each constraint
 * named once), and malicious plug-ins — a decoder returning a label out of range, a labelling of
 * the wrong length, a NaN score or a Promise, throwing, never returning; a slave returning a label
 * out of range; a plug-in that registers asynchronously — each ending in its documented exit code
 * with one line naming the plug-in (or, for the one that never returns, stopped by SIGINT).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadModel } from "@lagrange/chain-crf";
import { STANDARD_DECODERS } from "@lagrange/recipes";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeCitations } from "../probe/cli-process.js";
import { type BoundedRun, expectBounded, inParallel, runBounded, startBounded } from "./harness.js";

const MEMORY_MB = 1024;
const TIMEOUT_MS = 30_000;

let dir: string;
const run = (args: readonly string[]): Promise<BoundedRun> =>
  runBounded(args, { cwd: dir, memoryMb: MEMORY_MB, timeoutMs: TIMEOUT_MS });

/** The constraints file format, for files written here from the model's labels. */
function constraintsFile(
  labels: readonly string[],
  constraints: readonly { spec: Record<string, unknown>; penalty: number | null }[],
): string {
  return JSON.stringify({ format: "lagrange-constraints", version: 1, labels, constraints });
}

/** The segment paths of hierarchical BIO labels: `I-venue/B-date/B-year` → venue, venue/date, … */
function segmentsOf(labels: readonly string[]): { all: string[]; top: string[] } {
  const all = new Set<string>();
  for (const label of labels) {
    if (label === "O") continue;
    const parts = label.split("/").map((part) => part.replace(/^[BI]-/, ""));
    for (let depth = 1; depth <= parts.length; depth++) all.add(parts.slice(0, depth).join("/"));
  }
  const sorted = [...all].sort();
  return { all: sorted, top: sorted.filter((s) => !s.includes("/")) };
}

/** Names of the contradicting hard constraints written into conflict.constraints. */
let contradictions: string[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "lagrange-hostile-decoders-"));
  await writeCitations(join(dir, "cites.docs"), 60, 2);
  const train = await run(
    ["train", "--data", "cites.docs", "--preset", "citation", "--max-iterations", "30"].concat([
      "--out",
      "cite.model",
    ]),
  );
  expectBounded(train, 0);
  const lines = readFileSync(join(dir, "cites.docs"), "utf8").trim().split("\n");
  writeFileSync(join(dir, "two.docs"), `${lines.slice(0, 2).join("\n")}\n`);
  // The longest citation: with τ = 1e-300 its two-phase ILP keeps every node and edge.
  const words = (line: string) => line.split(/\s+/).filter((w) => !/^<\/?[a-z_-]+>$/.test(w));
  const longest = lines.reduce((a, b) => (words(b).length > words(a).length ? b : a));
  writeFileSync(join(dir, "long.docs"), `${longest}\n`);

  const labels = (await loadModel(join(dir, "cite.model"))).labels.names();
  const { all, top } = segmentsOf(labels);
  const pairs: [string, string][] = [];
  for (const first of all)
    for (const second of all) if (first !== second) pairs.push([first, second]);
  // Soft rules every labelling breaks somewhere ("no more X segments than Y segments", all pairs):
  // two-phase has to solve an ILP on every sentence.
  const soft = pairs.map(([first, second]) => ({
    spec: { kind: "pairwise-difference", first, second, bound: 0 },
    penalty: 1,
  }));
  writeFileSync(join(dir, "soft.constraints"), constraintsFile(labels, soft));
  // Hard: top-level segment kinds forbidden two by two (together they forbid every label: no
  // labelling is left), among 300 loose hard rules that never bind ("at most 3 more X than Y").
  const forbid = top.map((first, i) => [first, top[(i + 1) % top.length]!] as const);
  const kept = forbid.filter((_, i) => i % 2 === 0 || top.length % 2 === 1);
  contradictions = kept.map(([a, b]) => `no ${a} segment and no ${b} segment`);
  const hard = [
    ...pairs.slice(0, 300).map(([first, second]) => ({
      spec: { kind: "pairwise-difference", first, second, bound: 3 },
      penalty: null,
    })),
    ...kept.map(([first, second]) => ({
      spec: { kind: "pairwise-sum", first, second, bound: 0 },
      penalty: null,
    })),
  ];
  writeFileSync(join(dir, "conflict.constraints"), constraintsFile(labels, hard));
  writePlugins();
}, 60_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Plug-ins: one decoder "mine" each, built on the host's chain decoder and then spoiled. */
function writePlugins(): void {
  const decoder = (decode: string) => `export default function ({ registry, core }) {
  const chain = core.chainDecoder();
  registry.addDecoder({
    name: "mine",
    description: "a malicious plug-in decoder",
    accepts: { constraints: false, slaves: false },
    create: () => ({ name: "mine", decode(problem) { ${decode} } }),
  });
}
`;
  const plugins: Record<string, string> = {
    "out-of-range.mjs": decoder(
      "const d = chain.decode(problem); const labels = d.labels.slice(); labels[2] = 700; return { ...d, labels };",
    ),
    "wrong-length.mjs": decoder(
      "const d = chain.decode(problem); return { ...d, labels: d.labels.slice(0, 2) };",
    ),
    "nan-score.mjs": decoder("return { ...chain.decode(problem), primal: Number.NaN };"),
    "throws.mjs": decoder('throw new TypeError("boom from the plug-in");'),
    "promise.mjs": decoder("return Promise.resolve(chain.decode(problem));"),
    "never.mjs": decoder('process.stderr.write("entering an endless loop\\n"); for (;;) {}'),
    "async-register.mjs":
      'export default async function ({ registry }) { await null; registry.addDecoder({ name: "late" }); }\n',
    "bad-slave.mjs": `export default function ({ registry, core }) {
  registry.addSlave({
    name: "bad-slave",
    description: "returns a label out of range",
    create: ({ n, L }) => ({
      slave: core.defineSlave({
        name: "bad-slave", n, L,
        maximize: () => ({ labels: new Int32Array(n).fill(L + 5), value: 0 }),
        score: () => 0,
      }),
    }),
  });
  registry.addDecoder({
    name: "mine-dd",
    description: "dual decomposition with the bad slave",
    accepts: { constraints: true, slaves: true },
    withSlaves: ["bad-slave"],
    create: (context) => core.dualDecompositionDecoder("mine-dd", {}, context.chainSlaves()),
  });
}
`,
  };
  for (const [name, text] of Object.entries(plugins)) writeFileSync(join(dir, name), text);
}

describe.skipIf(process.platform !== "linux")(
  "decoders and plug-ins (Linux: the harness reads /proc)",
  () => {
    it("absurd numeric options, for every decoder: exit 2 naming the decoder, the option and its range", async () => {
      const values = ["0", "-1", "NaN", "Infinity", "1e308", "1e-320", "ten"];
      // Decoder options are checked by the chosen decoder's declaration (one it does not declare
      // is refused by name); --threads and --window by the command line.
      const options: [string, string | undefined, RegExp][] = [
        ["--time-limit", "time-limit", /expected a number in \[0\.001, 2147483\]/],
        ["--tau", "tau", /expected a number in \[1e-300, 1\]/],
        ["--max-iterations", "max-iterations", /expected an integer from 1 to 2147483647/],
        ["--bcrf-iterations", "iterations", /expected an integer from 1 to 2147483647/],
        ["--eta", "eta", /expected a number in \[0\.000001, 1000000\]/],
        ["--threads", undefined, /option '--threads [\s\S]*expected an integer ≥ 1/],
        ["--window", undefined, /option '--window [\s\S]*expected an integer ≥ 1/],
      ];
      const decoders = [
        "exact",
        "two-phase",
        "soft-dd",
        "hard-dd",
        "bcrf",
        "mean-field",
        "viterbi",
      ];
      // Each value with two options, each option with two or three values, each decoder in turn.
      const cases = values.flatMap((value, i) =>
        [0, 3].map((shift) => {
          const [option, declared, range] = options[(i + shift) % options.length]!;
          return {
            option,
            declared,
            range,
            value,
            decoder: decoders[(i + shift) % decoders.length]!,
          };
        }),
      );
      const runs = await inParallel(
        cases.map(
          ({ option, value, decoder }) =>
            () =>
              run([
                "tag",
                "--model",
                "cite.model",
                "--data",
                "two.docs",
                "--decoder",
                decoder,
                `${option}=${value}`,
              ]),
        ),
        4,
      );
      runs.forEach((result, i) => {
        const { declared, range, decoder } = cases[i]!;
        expectBounded(result, 2);
        const takes = declared !== undefined && declaresOption(decoder, declared);
        if (declared === undefined) expect(result.stderr).toMatch(range);
        else if (takes) {
          expect(result.stderr).toContain(`decoder "${decoder}" option "${declared}": expected`);
          expect(result.stderr).toMatch(range);
        } else {
          expect(result.stderr).toContain(`decoder "${decoder}" has no option "${declared}"`);
        }
        expect(result.stderr).not.toMatch(/^lagrange: internal error/m);
      });
    });

    it("two-phase with τ = 1e-300 and --time-limit 1: the limit bounds the sentence's decoding", async () => {
      // Before: HiGHS's presolve ran 6 s past a 1 s limit on such a sentence (7.0 to 8.7 s in all,
      // measured on a loaded two-core machine: presolve does not look at the clock inside its
      // steps), and phase 2 and the tie-break each had the whole limit. Now 1.4 to 2.8 s there.
      const result = await run([
        "tag",
        "--model",
        "cite.model",
        "--data",
        "long.docs",
        "--decoder",
        "two-phase",
        "--constraints",
        "soft.constraints",
        "--tau",
        "1e-300",
        "--time-limit",
        "1",
      ]);
      expectBounded(result, 0);
      expect(result.stderr).toMatch(/1 sentence\(s\) hit the 1 s time limit/);
      // The decoding's own clock (the report's), not the process's: 2 × the limit plus what HiGHS
      // spends setting up a 100,000-column model before it first looks at the clock.
      const decoding = Number(/decoding (\d+(?:\.\d+)?) s/.exec(result.stderr)?.[1]);
      expect(decoding, result.stderr).toBeLessThanOrEqual(2 * 1 + 2.5);
    });

    it("an infeasible sentence: its conflict set comes fast, each constraint named once", async () => {
      // Before: a deletion filter that rebuilt the ILP for each of the 303 hard constraints (over
      // 20 s for this sentence), and a rule with several rows was named once per row.
      const result = await run([
        "tag",
        "--model",
        "cite.model",
        "--data",
        "two.docs",
        "--decoder",
        "exact",
        "--constraints",
        "conflict.constraints",
      ]);
      expectBounded(result, 3);
      const line = /^lagrange: .*no labelling meets these hard constraints together: (.*)$/m.exec(
        result.stderr,
      );
      expect(line, result.stderr).not.toBeNull();
      const named = [...line![1]!.matchAll(/"([^"]+)"/g)].map((m) => m[1]!);
      expect(new Set(named).size).toBe(named.length);
      expect(named.sort()).toEqual([...contradictions].sort());
      expect(result.wallMs, result.stderr).toBeLessThan(15_000);
    });

    it("malicious plug-ins: exit 3 with one line naming the plug-in and what it returned", async () => {
      const cases: [string, string[], RegExp][] = [
        [
          "out-of-range.mjs",
          ["--decoder", "mine"],
          /decoder "mine" returned label 700 at token 3; the model has \d+ labels/,
        ],
        [
          "wrong-length.mjs",
          ["--decoder", "mine"],
          /decoder "mine" returned 2 labels for \d+ tokens/,
        ],
        ["nan-score.mjs", ["--decoder", "mine"], /decoder "mine" returned primal NaN/],
        ["throws.mjs", ["--decoder", "mine"], /decoder "mine" threw: boom from the plug-in/],
        [
          "promise.mjs",
          ["--decoder", "mine"],
          /decoder "mine" returned a Promise: decode must return its decoding synchronously/,
        ],
        ["async-register.mjs", ["--decoder", "late"], /its default export returned a Promise/],
        [
          "bad-slave.mjs",
          ["--decoder", "mine-dd"],
          /slave "bad-slave" returned label \d+ at token 1; the model has \d+ labels/,
        ],
      ];
      const runs = await inParallel(
        cases.map(
          ([plugin, args]) =>
            () =>
              run([
                "tag",
                "--model",
                "cite.model",
                "--data",
                "two.docs",
                "--plugin",
                plugin,
                ...args,
              ]),
        ),
      );
      runs.forEach((result, i) => {
        const [plugin, , message] = cases[i]!;
        expectBounded(result, 3);
        expect(result.stderr).toMatch(
          new RegExp(
            `^lagrange: (two\\.docs:\\d+( \\(token \\d+\\))?: )?plug-in ${plugin.replace(".", "\\.")}: `,
            "m",
          ),
        );
        expect(result.stderr).toMatch(message);
        expect(result.stderr).not.toMatch(/^lagrange: internal error/m);
        expect(result.stdout).toBe("");
      });
    });

    it("a plug-in decoder that never returns is stopped by SIGINT (130) within 2 s", async () => {
      const endless = startBounded(
        [
          "tag",
          "--model",
          "cite.model",
          "--data",
          "two.docs",
          "--plugin",
          "never.mjs",
          "--decoder",
          "mine",
        ],
        { cwd: dir, memoryMb: MEMORY_MB, timeoutMs: TIMEOUT_MS },
      );
      // The plug-in says when it enters its loop, which never yields to the event loop: only the
      // supervisor's kill, 0.5 s after the signal, can stop it.
      await endless.stderrMatches(/entering an endless loop/);
      endless.kill("SIGINT");
      const stopped = await endless.finished;
      expectBounded(stopped, 130);
      expect(stopped.stoppedMs, stopped.stderr).toBeLessThan(2000);
    });
  },
);

/** Whether a standard decoder declares the option. */
function declaresOption(decoder: string, option: string): boolean {
  const definition = STANDARD_DECODERS.find((d) => d.name === decoder);
  return definition?.options?.some((o) => o.name === option) ?? false;
}
