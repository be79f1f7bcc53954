import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { getPreset, loadModel } from "@lagrange/chain-crf";
import { chainDecoder, DecoderRegistry } from "@lagrange/core";
import { checkSlave } from "@lagrange/core/testing";
import {
  formatConll,
  generateCitationSentences,
  generateCitations,
  inputRows,
  readConllFile,
} from "@lagrange/datasets";
import {
  chainTagger,
  isTagFailure,
  loadPlugin,
  modelDecodingConstraints,
  standardDecoders,
  type TaggedSentence,
} from "@lagrange/recipes";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lastColumn, run } from "./testing/run-cli.js";

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
const plugin = join(repoRoot, "examples", "plugins", "venue-gazetteer.mjs");
const fixtures = join(repoRoot, "..", "shared", "fixtures", "conlleval");

let dir: string;
let model: string;
let dev: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "lagrange-cli-"));
  model = join(dir, "m.model");
  dev = join(dir, "dev.conll");
  // UMass-format citations: the scheme comes from the format (hierarchical BIO), no --scheme.
  const docs = join(dir, "train.docs");
  await writeFile(
    docs,
    `${generateCitations(150, { seed: 7 })
      .map((c) => c.inline)
      .join("\n")}\n`,
  );
  await writeFile(dev, formatConll(generateCitationSentences(40, { seed: 8 })));
  const trained = await run([
    "train",
    "--data",
    docs,
    "--preset",
    "citation",
    "--max-iterations",
    "8",
    "--out",
    model,
  ]);
  expect(trained.code, trained.stderr).toBe(0);
  expect(trained.stderr).toContain("scheme hierarchical-BIO (from the data)");
}, 60_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("lagrange info and eval", () => {
  it("info describes the model, its preset and the scheme it was trained under", async () => {
    const text = await run(["info", model]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^model {7}.*m\.model\npreset {6}citation\nlabels {6}\d+: /);
    const json = await run(["info", model, "--json"]);
    const summary = JSON.parse(json.stdout);
    expect(summary.settings.scheme).toBe("hierarchical-BIO");
    expect(summary.settings.data).toMatch(/train\.docs$/);
    expect(summary.weights).toBeGreaterThan(summary.nonZeroWeights - 1);
  });

  it.skipIf(!existsSync(fixtures))(
    "eval is byte-identical to conlleval.pl on its fixtures",
    async () => {
      for (const name of ["tricky", "crfsuite-conll2000-test"]) {
        const r = await run(["eval", join(fixtures, `${name}.txt`)]);
        expect(r.code).toBe(0);
        expect(r.stdout).toBe(readFileSync(join(fixtures, `${name}.conlleval.out`), "utf8"));
      }
      const json = await run(["eval", "--json", join(fixtures, "crfsuite-conll2000-test.txt")]);
      expect(JSON.parse(json.stdout).f1).toBe(93.61);
    },
  );

  it("eval scores hierarchical labels per field", async () => {
    const out = join(dir, "viterbi.txt");
    expect((await run(["tag", "--model", model, "--data", dev, "--out", out])).code).toBe(0);
    const r = await run(["eval", out]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^processed \d+ tokens with \d+ gold segments at all levels/);
    expect(r.stdout).toMatch(
      /field F1 \(all levels\): precision: [\d.]+%; recall: [\d.]+%; F1: [\d.]+/,
    );
  });
});

describe("a plug-in decoder and slave reach lagrange tag", () => {
  it("the plug-in guide shows the example plug-in verbatim", () => {
    const readme = readFileSync(join(repoRoot, "docs/plugins.md"), "utf8");
    const marker = "<!-- example: examples/plugins/venue-gazetteer.mjs -->";
    const at = readme.indexOf(marker);
    expect(at, `docs/plugins.md lacks the marker ${marker}`).toBeGreaterThanOrEqual(0);
    const block = /```js\n([\s\S]*?)```/.exec(readme.slice(at));
    expect(block?.[1]).toBe(readFileSync(plugin, "utf8"));
  });

  it("the example's slave is exact (checked against enumeration)", async () => {
    const registry = new DecoderRegistry();
    await loadPlugin(registry, plugin);
    const { slave } = registry.slave("venue-gazetteer").create({
      n: 4,
      L: 3,
      labels: ["O", "B-venue/B-journal", "I-venue/I-journal"],
      tokens: ["In", "Proceedings", "of", "Journal"],
    }) as { slave: Parameters<typeof checkSlave>[0] };
    expect(checkSlave(slave).calls).toBeGreaterThan(0);
  });

  it("--plugin … --decoder my-dd decodes CRF + gazetteer; certified answers are the exact optimum", async () => {
    const out = join(dir, "my-dd.txt");
    const r = await run([
      "tag",
      "--model",
      model,
      "--data",
      dev,
      "--plugin",
      plugin,
      "--decoder",
      "my-dd",
      "--out",
      out,
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/mean iterations .*% certified/);
    const predicted = lastColumn(await readFile(out, "utf8"));

    // The same through the library, and an independent exact answer: the gazetteer scores each
    // token alone, so CRF + gazetteer is a chain whose unary scores carry the bonus.
    const m = await loadModel(model);
    const registry = standardDecoders();
    await loadPlugin(registry, plugin);
    const tagger = chainTagger(m, { registry, decoder: "my-dd" });
    const gazetteer = registry.slave("venue-gazetteer");
    const scorer = m.scorer(modelDecodingConstraints(m));
    const viterbi = chainDecoder();
    const preset = getPreset("citation");
    const sentences = await readConllFile(dev);
    let certified = 0;
    const items = (await tagger.tag(sentences)).items;
    sentences.forEach((s, i) => {
      const tagged = items[i] as TaggedSentence;
      expect(tagged.labels).toEqual(predicted[i]);
      const scores = scorer.score(preset.extract(inputRows(s)));
      const { n, L } = scores;
      const { slave } = gazetteer.create({ n, L, labels: m.labels.names(), tokens: s.tokens }) as {
        slave: {
          maximize(a: Float64Array): { labels: Int32Array; value: number };
          score(y: ArrayLike<number>): number;
        };
      };
      // The slave's score of a labelling is a sum over tokens: read each token's bonus off it
      // (relative to label 0 at that token, a constant per token that moves no argmax).
      const base = new Int32Array(n);
      const bonus = new Float64Array(n * L);
      for (let j = 0; j < n * L; j++) {
        const y = base.slice();
        y[Math.floor(j / L)] = j % L;
        bonus[j] = slave.score(y) - slave.score(base);
      }
      const unary = scores.unary.map((u, j) => u + bonus[j]!);
      const exact = viterbi.decode({ scores: { ...scores, unary } });
      if (tagged.stats.certified) {
        certified++;
        expect(tagged.labels).toEqual(m.labels.decode(exact.labels));
      }
    });
    expect(certified).toBeGreaterThan(sentences.length * 0.9);
  });

  it("my-dd changes labels where Viterbi's, always towards the fields the listed venue words name", async () => {
    const m = await loadModel(model);
    const registry = standardDecoders();
    await loadPlugin(registry, plugin);
    const viterbi = chainTagger(m, { registry, decoder: "viterbi" });
    const myDd = chainTagger(m, { registry, decoder: "my-dd" });
    const gazetteer = registry.slave("venue-gazetteer");
    const names = m.labels.names();
    const sentences = generateCitationSentences(80, { seed: 9 });
    let changed = 0;
    let certified = 0;
    let before = 0;
    let after = 0;
    const ids = async (tagger: typeof viterbi) =>
      (await tagger.tag(sentences)).items.map((item) => {
        if (isTagFailure(item)) throw new Error(item.reason);
        return {
          labels: Int32Array.from(item.labels, (name) => m.labels.lookup(name)),
          certified: item.stats.certified,
        };
      });
    const viterbiTagged = await ids(viterbi);
    const myDdTagged = await ids(myDd);
    for (const [k, s] of sentences.entries()) {
      const a = viterbiTagged[k]!;
      const b = myDdTagged[k]!;
      if (a.labels.some((y, i) => y !== b.labels[i])) changed++;
      const { slave } = gazetteer.create({
        n: s.tokens.length,
        L: names.length,
        labels: names,
        tokens: s.tokens,
      }) as { slave: { score(y: ArrayLike<number>): number } };
      // The gazetteer's score counts listed words labelled with the field they name. A certified
      // my-dd answer maximises CRF + gazetteer and Viterbi's the CRF alone, so the gazetteer's
      // score can only rise: every change is one the rule asks for.
      if (!b.certified) continue;
      certified++;
      expect(slave.score(b.labels)).toBeGreaterThanOrEqual(slave.score(a.labels));
      before += slave.score(a.labels);
      after += slave.score(b.labels);
    }
    expect(certified).toBeGreaterThan(sentences.length * 0.9);
    expect(changed).toBeGreaterThan(0);
    expect(after).toBeGreaterThan(before);
  });
});

describe("exit codes", () => {
  const code = async (args: string[]) => run(args);

  it("0 for help, 2 for usage errors, naming what is known", async () => {
    expect((await code(["--help"])).code).toBe(0);
    expect((await code(["frobnicate"])).code).toBe(2);
    const decoder = await code(["tag", "--model", model, "--data", dev, "--decoder", "nope"]);
    expect(decoder.code).toBe(2);
    expect(decoder.stderr).toContain(
      'unknown decoder "nope"; expected one of viterbi, soft-dd, hard-dd',
    );
    const scheme = await code([
      "train",
      "--data",
      dev,
      "--preset",
      "citation",
      "--scheme",
      "BIO",
      "--out",
      join(dir, "x.model"),
    ]);
    expect(scheme.code).toBe(2);
    expect(scheme.stderr).toContain('unknown label scheme "BIO"');
    const dataset = await code(["tag", "--model", model, "--data", "no-such-dataset:dev"]);
    expect(dataset.code).toBe(2);
    expect(dataset.stderr).toContain("not a registered dataset");
    const constraints = await code([
      "tag",
      "--model",
      model,
      "--data",
      dev,
      "--decoder",
      "viterbi",
      "--constraints",
      "c.json",
    ]);
    expect(constraints.code).toBe(2);
    expect(constraints.stderr).toContain("decoder viterbi does not take constraints");
  });

  it("3 for malformed input: model, data, plug-in, and gold labels that do not fit the scheme", async () => {
    const badModel = join(dir, "bad.model");
    await writeFile(badModel, "not a model");
    const info = await code(["info", badModel]);
    expect(info.code).toBe(3);
    expect(info.stderr).toContain(badModel);
    const badData = join(dir, "bad.conll");
    await writeFile(badData, "a B-x\nb\n");
    const tag = await code(["tag", "--model", model, "--data", badData]);
    expect(tag.code).toBe(3);
    expect(tag.stderr).toContain(`${badData}:2`);
    const badPlugin = join(dir, "bad-plugin.mjs");
    await writeFile(badPlugin, "export const nothing = 1;\n");
    const loaded = await code(["tag", "--model", model, "--data", dev, "--plugin", badPlugin]);
    expect(loaded.code).toBe(3);
    expect(loaded.stderr).toContain("expected a default export");
    // Hierarchical labels trained as flat IOB2 would be a silent wrong model: refused, with the fix.
    const wrong = await code([
      "train",
      "--data",
      dev,
      "--preset",
      "citation",
      "--scheme",
      "IOB2",
      "--out",
      join(dir, "w.model"),
    ]);
    expect(wrong.code).toBe(3);
    expect(wrong.stderr).toMatch(
      /dev\.conll:2: 40 of 40 gold sequences in .* are invalid under the IOB2 scheme .*pass --scheme hierarchical-BIO/,
    );
    expect(existsSync(join(dir, "w.model"))).toBe(false);
  });

  it("4 when a dataset split is not reachable; 2 for an output path that cannot be written", async () => {
    const sealed = await code(["tag", "--model", model, "--data", "umass-citations:test"]);
    expect(sealed.code).toBe(4);
    const out = join(dir, "no-such-folder", "out.txt");
    const write = await code(["tag", "--model", model, "--data", dev, "--out", out]);
    expect(write.code).toBe(2);
    expect(write.stderr).toMatch(
      /--out .*out\.txt: cannot be written \(no such file or directory\)/,
    );
  });
});

describe("lagrange demo", () => {
  it("runs the main job on generated citations when no corpus is reachable", async () => {
    const empty = join(dir, "no-data");
    await mkdir(empty, { recursive: true });
    const saved = { ...process.env };
    Object.assign(process.env, {
      LAGRANGE_DATA_DIR: empty,
      LAGRANGE_CACHE_DIR: empty,
      LAGRANGE_OFFLINE: "1",
    });
    try {
      const r = await run(["demo", "--crf-iterations", "15", "--epochs", "1"]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain("data:     generated citations");
      expect(r.stdout).toMatch(/\| Viterbi \(scheme-valid\) \| [\d.]+ \|/);
      expect(r.stdout).toMatch(/\| Soft-DD \(learned penalties\) \| [\d.]+ \| .* [\d.]+× \(/);
      expect(r.stdout).toMatch(/relative error reduction/);
    } finally {
      for (const key of ["LAGRANGE_DATA_DIR", "LAGRANGE_CACHE_DIR", "LAGRANGE_OFFLINE"]) {
        if (saved[key] === undefined) delete process.env[key];
        else process.env[key] = saved[key];
      }
    }
  }, 120_000);
});
