import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { crfSlave, getPreset, loadModel } from "@lagrange/chain-crf";
import {
  constraintInstantiator,
  parseConstraintsFile,
  serializeConstraintsFile,
  templateFromSpec,
} from "@lagrange/constraint-templates";
import {
  decodingMask,
  formatConll,
  generateCitationSentences,
  inputRows,
  readConllFile,
} from "@lagrange/datasets";
import { exactIlpDecoder, prepareIlp } from "@lagrange/ilp";
import { softDD } from "@lagrange/soft-dd";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lastColumn, run } from "./testing/run-cli.js";

describe("lagrange constraints learn + tag --decoder soft-dd (generated citations)", () => {
  let dir: string;
  let model: string;
  let dev: string;
  let constraints: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "lagrange-cli-constraints-"));
    model = join(dir, "m.model");
    dev = join(dir, "dev.conll");
    constraints = join(dir, "c.json");
    await writeFile(
      join(dir, "train.conll"),
      formatConll(generateCitationSentences(120, { seed: 7 })),
    );
    await writeFile(dev, formatConll(generateCitationSentences(50, { seed: 8 })));
    // Held-out data to learn from: enough citations that a family's gain on the check cut
    // clears its bootstrap interval (on 50, none does and the file would hold nothing).
    const heldOut = join(dir, "held-out.conll");
    await writeFile(heldOut, formatConll(generateCitationSentences(150, { seed: 8 })));
    const trained = await run([
      "train",
      "--data",
      join(dir, "train.conll"),
      "--preset",
      "citation",
      "--scheme",
      "hierarchical-BIO",
      "--max-iterations",
      "8",
      "--out",
      model,
    ]);
    expect(trained.code, trained.stderr).toBe(0);
    const learned = await run([
      "constraints",
      "learn",
      "--model",
      model,
      "--data",
      heldOut,
      "--templates",
      "singleton,pairwise,hierarchical,bio",
      "--epochs",
      "2",
      "--out",
      constraints,
    ]);
    expect(learned.code, learned.stderr).toBe(0);
    expect(learned.stdout).toMatch(/candidate constraints; \d+ kept by importance/);
    expect(learned.stdout).toMatch(/on the check cut \(\d+ sentences\)/);
    expect(learned.stdout).toContain("learned a penalty of 0");
    expect(learned.stdout).toContain(`wrote ${constraints}`);
  }, 60_000);

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("writes a versioned constraints file that parses against the model's labels", async () => {
    const m = await loadModel(model);
    const file = parseConstraintsFile(await readFile(constraints, "utf8"), {
      source: constraints,
      expectedLabels: m.labels.names(),
    });
    expect(file.entries.length).toBeGreaterThan(0);
    for (const e of file.entries) {
      expect(e.penalty).not.toBeNull();
      expect(e.penalty!).toBeGreaterThanOrEqual(0);
      expect(e.template.describe().length).toBeGreaterThan(0);
      expect(e.importance!).toBeGreaterThanOrEqual(1);
    }
    expect(file.metadata?.algorithm).toBe("averaged-perceptron");
  });

  it("tag --decoder soft-dd equals Soft-DD run through the libraries, and reports its statistics", async () => {
    const out = join(dir, "soft.txt");
    const tagged = await run([
      "tag",
      "--model",
      model,
      "--data",
      dev,
      "--decoder",
      "soft-dd",
      "--constraints",
      constraints,
      "--out",
      out,
    ]);
    expect(tagged.code, tagged.stderr).toBe(0);
    expect(tagged.stderr).toMatch(/mean iterations/);
    expect(tagged.stderr).toMatch(/% certified/);
    const text = await readFile(out, "utf8");
    const predicted = lastColumn(text);

    // The same decoding, assembled by hand from the libraries.
    const m = await loadModel(model);
    const entries = parseConstraintsFile(await readFile(constraints, "utf8")).entries;
    const constraintsFor = constraintInstantiator(entries);
    const sentences = await readConllFile(dev);
    const preset = getPreset("citation");
    const solver = softDD({ chainSlave: crfSlave });
    const mask = decodingMask(m.labels.names(), "hierarchical-BIO")!;
    expect(predicted.length).toBe(sentences.length);
    sentences.forEach((s, i) => {
      const scores = m.chainScores(preset.extract(inputRows(s)), { constraints: mask });
      const solution = solver.decode({
        scores,
        constraints: constraintsFor({ n: s.tokens.length, L: m.numLabels, tokens: s.tokens }),
      });
      expect(predicted[i]).toEqual(m.labels.decode(solution.labels));
    });
    // Input columns kept: token first, gold second-to-last.
    const firstLine = text.split("\n")[0]!.split(" ");
    expect(firstLine[0]).toBe(sentences[0]!.tokens[0]);
    expect(firstLine[firstLine.length - 2]).toBe(sentences[0]!.labels![0]);
  });

  it("with one iteration, soft-dd and hard-dd return the Viterbi labelling", async () => {
    const viterbiOut = join(dir, "viterbi.txt");
    expect((await run(["tag", "--model", model, "--data", dev, "--out", viterbiOut])).code).toBe(0);
    const viterbi = lastColumn(await readFile(viterbiOut, "utf8"));
    for (const decoder of ["soft-dd", "hard-dd"]) {
      const out = join(dir, `${decoder}-1.txt`);
      const r = await run([
        "tag",
        "--model",
        model,
        "--data",
        dev,
        "--decoder",
        decoder,
        "--constraints",
        constraints,
        "--max-iterations",
        "1",
        "--out",
        out,
      ]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/1\.00 mean iterations/);
      if (decoder === "soft-dd") expect(lastColumn(await readFile(out, "utf8"))).toEqual(viterbi);
    }
  });

  it("rejects a malformed constraints file with exit code 3 naming the file", async () => {
    const text = await readFile(constraints, "utf8");
    const cases: [string, string, RegExp][] = [
      ["not-json.json", `${text.slice(0, 200)}\n}}}`, /not valid JSON/],
      ["negative.json", text.replace(/"penalty": ?[0-9.e-]+/, '"penalty": -1'), /penalty/],
      [
        "other-labels.json",
        text.replace('"labels": [', '"labels": ["B-not-a-model-label", '),
        /label/,
      ],
      ["wrong-format.json", text.replace('"lagrange-constraints"', '"something-else"'), /format/],
    ];
    for (const [name, content, message] of cases) {
      const bad = join(dir, name);
      await writeFile(bad, content);
      const r = await run([
        "tag",
        "--model",
        model,
        "--data",
        dev,
        "--decoder",
        "soft-dd",
        "--constraints",
        bad,
      ]);
      expect(r.code, `${name}: ${r.stderr}`).toBe(3);
      expect(r.stderr).toContain(bad);
      expect(r.stderr).toMatch(message);
    }
    const missing = await run([
      "tag",
      "--model",
      model,
      "--data",
      dev,
      "--decoder",
      "soft-dd",
      "--constraints",
      join(dir, "absent.json"),
    ]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--constraints .*absent\.json: no such file/);
  });

  it("where no constraint can raise check F1 (Viterbi is already right) it writes an empty set and says so", async () => {
    const easy = join(dir, "easy.conll");
    const lines: string[] = [];
    for (let s = 0; s < 60; s++) lines.push("Ann B-PER", "saw O", "Bob B-PER", ". O", "");
    await writeFile(easy, lines.join("\n"));
    const easyModel = join(dir, "easy.model");
    const trained = await run(
      ["train", "--data", easy, "--preset", "ner-words", "--max-iterations", "20"].concat([
        "--out",
        easyModel,
      ]),
    );
    expect(trained.code, trained.stderr).toBe(0);
    const out = join(dir, "easy.json");
    const learned = await run(
      ["constraints", "learn", "--model", easyModel, "--data", easy].concat([
        "--threshold",
        "0",
        "--out",
        out,
      ]),
    );
    expect(learned.code, learned.stderr).toBe(0);
    expect(learned.stdout).toMatch(
      /No constraint raised chunk F1 on the check cut .*: the file holds an empty set/,
    );
    const file = parseConstraintsFile(await readFile(out, "utf8"), { source: out });
    expect(file.entries).toEqual([]);
    expect(file.metadata?.checkF1After).toBe(file.metadata?.checkF1Before);
  }, 60_000);

  it("refuses usage errors with exit code 2", async () => {
    const noConstraints = await run([
      "tag",
      "--model",
      model,
      "--data",
      dev,
      "--decoder",
      "soft-dd",
    ]);
    expect(noConstraints.code).toBe(2);
    expect(noConstraints.stderr).toContain("decoder soft-dd decodes under constraints");
    const badFamily = await run([
      "constraints",
      "learn",
      "--model",
      model,
      "--data",
      dev,
      "--templates",
      "singleton,nonsense",
      "--out",
      join(dir, "x.json"),
    ]);
    expect(badFamily.code).toBe(2);
    expect(badFamily.stderr).toContain('unknown family "nonsense"');
  });

  it("tag --decoder exact is the ILP optimum of Soft-DD's objective; two-phase honours --tau", async () => {
    const m = await loadModel(model);
    const entries = parseConstraintsFile(await readFile(constraints, "utf8")).entries;
    const constraintsFor = constraintInstantiator(entries);
    const sentences = await readConllFile(dev);
    const preset = getPreset("citation");
    const mask = decodingMask(m.labels.names(), "hierarchical-BIO")!;
    const out = join(dir, "exact.txt");
    const tagged = await run([
      "tag",
      "--model",
      model,
      "--data",
      dev,
      "--decoder",
      "exact",
      "--constraints",
      constraints,
      "--time-limit",
      "30",
      "--out",
      out,
    ]);
    expect(tagged.code, tagged.stderr).toBe(0);
    expect(tagged.stderr).toMatch(/100\.0% certified/);
    const predicted = lastColumn(await readFile(out, "utf8"));
    await prepareIlp();
    const exact = exactIlpDecoder();
    const dd = softDD({ chainSlave: crfSlave });
    sentences.forEach((s, i) => {
      const scores = m.chainScores(preset.extract(inputRows(s)), { constraints: mask });
      const problem = {
        scores,
        constraints: constraintsFor({ n: s.tokens.length, L: m.numLabels, tokens: s.tokens }),
      };
      const referee = exact.decode(problem);
      expect(predicted[i]).toEqual(m.labels.decode(referee.labels));
      // No relaxation beats the optimum; a certified one reaches it.
      const relaxed = dd.decode(problem);
      expect(relaxed.primal).toBeLessThanOrEqual(
        referee.primal + 1e-6 * Math.max(1, Math.abs(referee.primal)),
      );
      if (relaxed.certified) expect(relaxed.primal).toBeCloseTo(referee.primal, 6);
    });

    const two = await run([
      "tag",
      "--model",
      model,
      "--data",
      dev,
      "--decoder",
      "two-phase",
      "--constraints",
      constraints,
      "--tau",
      "1",
      "--out",
      join(dir, "two-phase.txt"),
    ]);
    expect(two.code, two.stderr).toBe(0);
    // τ = 1 admits only labellings as good as Viterbi's: the Viterbi labelling itself.
    const viterbiOut = join(dir, "viterbi-for-two-phase.txt");
    expect((await run(["tag", "--model", model, "--data", dev, "--out", viterbiOut])).code).toBe(0);
    expect(lastColumn(await readFile(join(dir, "two-phase.txt"), "utf8"))).toEqual(
      lastColumn(await readFile(viterbiOut, "utf8")),
    );
    for (const tau of ["0", "1.5", "x"]) {
      const bad = await run([
        "tag",
        "--model",
        model,
        "--data",
        dev,
        "--decoder",
        "two-phase",
        "--constraints",
        constraints,
        "--tau",
        tau,
      ]);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/expected a number in \[1e-300, 1\]/);
    }
    // Options soft-dd does not declare: a usage error naming the decoder and what it takes.
    const misapplied = await run([
      "tag",
      ...["--model", model, "--data", dev, "--decoder", "soft-dd", "--constraints", constraints],
      ...["--tau", "0.5", "--out", join(dir, "ignored.txt")],
    ]);
    expect(misapplied.code).toBe(2);
    expect(misapplied.stderr).toMatch(
      /decoder "soft-dd" has no option "tau"; its options: max-iterations, tolerance, step, eta, exact/,
    );
  }, 60_000);

  it("tag --step ad3 decodes soft-dd with AD3 as the library does; --exact reaches the ILP optimum", async () => {
    // Ten citations: AD3 (and its branch and bound) runs many slave QPs per citation.
    const small = join(dir, "small.conll");
    await writeFile(small, formatConll(generateCitationSentences(10, { seed: 8 })));
    const m = await loadModel(model);
    const entries = parseConstraintsFile(await readFile(constraints, "utf8")).entries;
    const constraintsFor = constraintInstantiator(entries);
    const preset = getPreset("citation");
    const mask = decodingMask(m.labels.names(), "hierarchical-BIO")!;
    const problems = (await readConllFile(small)).map((s) => ({
      scores: m.chainScores(preset.extract(inputRows(s)), { constraints: mask }),
      constraints: constraintsFor({ n: s.tokens.length, L: m.numLabels, tokens: s.tokens }),
    }));
    const base = ["--model", model, "--data", small, "--constraints", constraints];
    const tag = async (extra: string[]) => {
      const out = join(dir, `small${extra.join("")}.txt`);
      const r = await run(["tag", ...base, ...extra, "--out", out]);
      expect(r.code, r.stderr).toBe(0);
      return { stderr: r.stderr, predicted: lastColumn(await readFile(out, "utf8")) };
    };
    const meanIterations = (decodings: readonly { iterations: number }[]) =>
      (decodings.reduce((sum, d) => sum + d.iterations, 0) / decodings.length).toFixed(2);

    const tagged = await tag(["--decoder", "soft-dd", "--step", "ad3"]);
    const ad3 = softDD({ chainSlave: crfSlave, step: "ad3" });
    const decodings = problems.map((p) => ad3.decode(p));
    const subgradient = softDD({ chainSlave: crfSlave });
    expect(tagged.predicted).toEqual(decodings.map((d) => m.labels.decode(d.labels)));
    // The flag reached the master: the CLI's statistics are AD3's, not the subgradient's.
    expect(tagged.stderr).toContain(`${meanIterations(decodings)} mean iterations`);
    expect(meanIterations(decodings)).not.toBe(
      meanIterations(problems.map((p) => subgradient.decode(p))),
    );

    // Exact mode (a flag that stands alone): branch and bound closes every gap at the optimum.
    const exactly = await tag(["--decoder", "soft-dd", "--step", "ad3", "--exact"]);
    expect(exactly.stderr).toMatch(/100\.0% certified/);
    await prepareIlp();
    const referee = exactIlpDecoder();
    expect(exactly.predicted).toEqual(
      problems.map((p) => m.labels.decode(referee.decode(p).labels)),
    );

    // A decoder that does not run the master refuses the step, naming what it takes.
    const refused: [string[], RegExp][] = [
      [["--step", "ad3"], /decoder "viterbi" has no option "step"; it takes no options/],
      [
        ["--decoder", "exact", "--step", "ad3"],
        /decoder "exact" has no option "step"; its options: time-limit$/m,
      ],
      [
        ["--decoder", "soft-dd", "--step", "newton"],
        /decoder "soft-dd" option "step": expected one of subgradient, ad3, auto, got "newton"/,
      ],
      [
        ["--decoder", "soft-dd", "--step", "ad3", "--eta", "0"],
        /decoder "soft-dd" option "eta": expected a number in \[0\.000001, 1000000\], got "0"/,
      ],
      [
        ["--decoder", "hard-dd", "--exact", "maybe"],
        /decoder "hard-dd" option "exact": expected true or false, got "maybe"/,
      ],
    ];
    for (const [extra, message] of refused) {
      const r = await run(["tag", ...base, ...extra]);
      expect(r.code, extra.join(" ")).toBe(2);
      expect(r.stderr).toMatch(message);
    }
  }, 120_000);

  it("hard constraints that cannot hold together: exit 3 at the sentence, naming them", async () => {
    const file = parseConstraintsFile(await readFile(constraints, "utf8"));
    const index = file.index;
    const [a, b, c] = index.countableKeys("segment").map((k) => k.key);
    const sentences = await readConllFile(dev);
    const delimiter = ",";
    expect(sentences.some((s) => s.tokens.slice(1, -1).includes(delimiter))).toBe(true);
    const contradiction = join(dir, "contradiction.json");
    await writeFile(
      contradiction,
      serializeConstraintsFile({
        index,
        entries: [
          {
            template: templateFromSpec(
              { kind: "state-change", delimiter, first: a!, second: b! },
              index,
            ),
            penalty: null,
          },
          {
            template: templateFromSpec(
              { kind: "state-change", delimiter, first: c!, second: b! },
              index,
            ),
            penalty: null,
          },
        ],
      }),
    );
    for (const decoder of ["exact", "two-phase"]) {
      const r = await run([
        "tag",
        "--model",
        model,
        "--data",
        dev,
        "--decoder",
        decoder,
        "--constraints",
        contradiction,
        "--out",
        join(dir, `never-${decoder}.txt`),
      ]);
      expect(r.code, r.stderr).toBe(3);
      expect(r.stderr).toMatch(
        new RegExp(
          `${dev.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:\\d+: no labelling meets these hard constraints together`,
        ),
      );
      expect(r.stderr).toContain(`before \\"${delimiter}\\" is ${a}`);
      expect(r.stderr).toContain(`before \\"${delimiter}\\" is ${c}`);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
  });
});
