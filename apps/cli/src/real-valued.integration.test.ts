import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { crfsuiteModelFromBytes, loadModel } from "@lagrange/chain-crf";
import { findSplitFile } from "@lagrange/datasets/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run } from "./testing/run-cli.js";

const conll2000 = findSplitFile("conll2000", "train");
const why = "no dataset mirror (set LAGRANGE_DATA_DIR or provide ../shared/datasets)";

/** Cheap real-valued features of a word: log length, capitalised (±1), share of digits. */
function denseOf(word: string): string[] {
  const digits = [...word].filter((c) => c >= "0" && c <= "9").length;
  return [Math.log(word.length), /^[A-Z]/.test(word) ? 1 : -1, digits / word.length].map((x) =>
    x.toFixed(3),
  );
}

describe.skipIf(conll2000 === undefined)(
  `lagrange train with real-valued features on CoNLL-2000 — skipped if ${why}`,
  () => {
    let dir = "";
    let sentences: string[][][] = [];
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), "lagrange-cli-real-valued-"));
      sentences = (await readFile(conll2000!, "utf8"))
        .split(/\n\s*\n/)
        .map((block) =>
          block
            .split("\n")
            .filter((line) => line.trim() !== "")
            .map((line) => line.split(" ")),
        )
        .filter((rows) => rows.length > 0)
        .slice(0, 360);
    });
    afterAll(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    it("--dense-columns: train, tag and eval; the model reads its dense columns again; bad cells name file:line", async () => {
      // word, POS, three dense columns, chunk.
      const write = async (name: string, from: number, to: number) => {
        const path = join(dir, name);
        const text = sentences
          .slice(from, to)
          .map((s) => s.map(([w, pos, chunk]) => [w, pos, ...denseOf(w!), chunk].join(" ")))
          .map((lines) => lines.join("\n"))
          .join("\n\n");
        await writeFile(path, `${text}\n`);
        return path;
      };
      const train = await write("train.conll", 0, 300);
      const test = await write("test.conll", 300, 360);
      const model = join(dir, "dense.lgm");
      const trained = await run([
        "train",
        ...["--data", train, "--preset", "chunking", "--dense-columns", "3-5"],
        ...["--max-iterations", "30", "--out", model],
      ]);
      expect(trained.stderr).toMatch(/dense columns 3-5: 3 real-valued attributes per token/);
      expect(trained.code).toBe(0);
      const loaded = await loadModel(model);
      expect(loaded.attributes.names()).toContain("dense[4]");
      expect(JSON.stringify(loaded.settings.features)).toMatch(/"dense":\{"columns":\[2,3,4\]\}/);
      const tagged = await run(["tag", "--model", model, "--data", test]);
      expect(tagged.code).toBe(0);
      const first = tagged.stdout.split("\n")[0]!.split(" ");
      expect(first).toHaveLength(7); // word, POS, 3 dense, gold, predicted
      const predictions = join(dir, "predicted.conll");
      await writeFile(predictions, tagged.stdout);
      const scored = await run(["eval", predictions]);
      expect(scored.code).toBe(0);
      const f1 = Number(/FB1:\s+([\d.]+)/.exec(scored.stdout)?.[1]);
      expect(f1).toBeGreaterThan(75);

      const bad = join(dir, "bad.conll");
      const lines = (await readFile(test, "utf8")).split("\n");
      lines[2] = lines[2]!.replace(/^(\S+ \S+) \S+/, "$1 1.2.3");
      await writeFile(bad, lines.join("\n"));
      const refused = await run(["tag", "--model", model, "--data", bad]);
      expect(refused.code).toBe(3);
      expect(refused.stderr).toMatch(/bad\.conll:3: column 3 is "1\.2\.3"; expected a number/);
      const badTrain = await run([
        ...["train", "--data", bad, "--preset", "chunking", "--dense-columns", "3-5"],
        ...["--max-iterations", "2", "--out", join(dir, "never.lgm")],
      ]);
      expect(badTrain.code).toBe(3);
      expect(badTrain.stderr).toMatch(/bad\.conll:3: column 3 is "1\.2\.3"/);

      for (const columns of ["1-3", "3-x", "3,3"]) {
        const usage = await run([
          ...["train", "--data", train, "--preset", "chunking", "--dense-columns", columns],
          ...["--out", join(dir, "never.lgm")],
        ]);
        expect(usage.code, columns).toBe(2);
      }
      const tooWide = await run([
        ...["train", "--data", train, "--preset", "chunking", "--dense-columns", "3-6"],
        ...["--out", join(dir, "never.lgm")],
      ]);
      expect(tooWide.code).toBe(2);
      expect(tooWide.stderr).toMatch(/dense column 6: .* has 5 input column\(s\)/);
    });

    it("--format crfsuite: trains on name:value attributes; tag --format crfsuite and export use the model", async () => {
      const write = async (name: string, from: number, to: number) => {
        const path = join(dir, name);
        const text = sentences
          .slice(from, to)
          .map((s) =>
            s
              .map(([w, pos, chunk], t) =>
                [
                  chunk,
                  `w=${w!.replace(/[\\:]/g, (c) => `\\${c}`)}`,
                  `pos=${pos}`,
                  `pos[-1]=${s[t - 1]?.[1] ?? "BOS"}`,
                  ...denseOf(w!).map((x, k) => `d${k}:${x}`),
                ].join("\t"),
              )
              .join("\n"),
          )
          .join("\n\n");
        await writeFile(path, `${text}\n`);
        return path;
      };
      const train = await write("train.crfsuite", 0, 300);
      const test = await write("test.crfsuite", 300, 360);
      const model = join(dir, "crfsuite.lgm");
      for (const algorithm of ["lbfgs", "ap"]) {
        const trained = await run([
          ...["train", "--format", "crfsuite", "--data", train, "--dev", test],
          ...["--algorithm", algorithm, "--max-iterations", "20", "--out", model],
        ]);
        expect(trained.code, trained.stderr).toBe(0);
        expect(trained.stdout).toMatch(/scheme IOB2; best dev: acc [\d.]+%, F1/);
        const loaded = await loadModel(model);
        expect(loaded.preset).toBeNull();
        expect(loaded.settings.format).toBe("crfsuite");
        const tagged = await run(["tag", "--format", "crfsuite", "--model", model, "--data", test]);
        expect(tagged.code).toBe(0);
        expect(tagged.stdout.split("\n").length).toBeGreaterThan(1000);
        const accuracy = Number(/token accuracy ([\d.]+)%/.exec(tagged.stderr)?.[1]);
        expect(accuracy, algorithm).toBeGreaterThan(85);
      }
      const exported = join(dir, "exported.crfsuite");
      const result = await run(["export", "--to", "crfsuite", "--model", model, "--out", exported]);
      expect(result.code).toBe(0);
      const crfsuite = crfsuiteModelFromBytes(await readFile(exported));
      expect(crfsuite.attributes.names()).toContain("d0");

      const usage = await run([
        ...["train", "--format", "crfsuite", "--data", train, "--preset", "chunking"],
        ...["--out", join(dir, "never.lgm")],
      ]);
      expect(usage.code).toBe(2);
      expect(usage.stderr).toMatch(/--preset: --format crfsuite data carries its attributes/);
      const bad = join(dir, "bad.crfsuite");
      await writeFile(bad, "B-NP\tw=a\td0:zero\nI-NP\tw=b\n");
      const refused = await run([
        ...["train", "--format", "crfsuite", "--data", bad, "--out", join(dir, "never.lgm")],
      ]);
      expect(refused.code).toBe(3);
      expect(refused.stderr).toMatch(/bad\.crfsuite:1/);
    });
  },
);
