import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  crfsuiteModelFromBytes,
  crfsuiteModelToBytes,
  fromAttributeLists,
  loadModelFromBytes,
  modelToBytes,
} from "@lagrange/chain-crf";
import { LagrangeError } from "@lagrange/core";
import { type CrfsuiteInstance, formatCrfsuite, parseCrfsuite } from "@lagrange/datasets";
import { findSplitFile, openCorpus } from "@lagrange/datasets/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { attributesOf, inputForModel } from "./model-input.js";
import { trainingFeatures } from "./task-presets/training-features.js";
import { trainOnCorpus } from "./training.js";
import { trainOnCrfsuite } from "./training-crfsuite.js";

const conll2000 = findSplitFile("conll2000", "train");
const why = "no dataset mirror (set LAGRANGE_DATA_DIR or provide ../shared/datasets)";

/** CoNLL-2000 sentences (word, POS, chunk), the first `count` of the file. */
async function sentences(count: number): Promise<string[][][]> {
  const text = await readFile(conll2000!, "utf8");
  return text
    .split(/\n\s*\n/)
    .map((block) =>
      block
        .split("\n")
        .filter((line) => line.trim() !== "")
        .map((line) => line.split(" ")),
    )
    .filter((rows) => rows.length > 0)
    .slice(0, count);
}

/** Cheap real-valued features of a word: log length, capitalised (±1), share of digits. */
function denseOf(word: string): number[] {
  const digits = [...word].filter((c) => c >= "0" && c <= "9").length;
  return [
    Math.round(Math.log(word.length) * 1000) / 1000,
    /^[A-Z]/.test(word) ? 1 : -1,
    Math.round((digits / word.length) * 1000) / 1000,
  ];
}

describe.skipIf(conll2000 === undefined)(
  `real-valued features on CoNLL-2000 — skipped if ${why}`,
  () => {
    let dir = "";
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), "lagrange-real-valued-"));
    });
    afterAll(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    it("dense columns train with a preset, the model file records them, tagging reads them again", async () => {
      // word, d1, d2, d3, POS, chunk: dense columns 2–4 sit between the word and the POS.
      const rows = await sentences(330);
      const text = rows
        .map((s) =>
          s.map(([w, pos, chunk]) => [w, ...denseOf(w!), pos, chunk].join(" ")).join("\n"),
        )
        .join("\n\n");
      const path = join(dir, "dense.conll");
      await writeFile(path, `${text}\n`);
      const corpus = await openCorpus(path, { format: "conll" });
      const train = { ...corpus, sentences: corpus.sentences.slice(0, 300) };
      const held = corpus.sentences.slice(300);
      const features = await trainingFeatures(
        { preset: "chunking", denseColumns: [1, 2, 3] },
        train,
        train.scheme,
      );
      expect(features.features?.dense?.columns).toEqual([1, 2, 3]);
      const { model } = await trainOnCorpus(train, {
        preset: features.preset,
        ...(features.features === undefined ? {} : { features: features.features }),
        algorithm: "lbfgs",
        maxIterations: 30,
      });
      const loaded = loadModelFromBytes(modelToBytes(model));
      expect(loaded.settings.inputColumns).toBe(5);
      const names = loaded.attributes.names();
      for (const c of [2, 3, 4]) expect(names).toContain(`dense[${c}]`);
      const attributes = attributesOf(loaded, held);
      // The POS column reached the chunking preset although the dense columns come before it.
      expect(attributes[0]!.names).toContain(`pos[0]=${held[0]!.columns[4]![0]}`);
      let right = 0;
      let all = 0;
      for (const [i, s] of held.entries()) {
        const tagged = loaded.tag(attributes[i]!);
        expect(tagged).toEqual(model.tag(attributesOf(model, [s])[0]!));
        for (const [t, label] of tagged.entries()) {
          all++;
          if (label === s.labels![t]) right++;
        }
      }
      expect(right / all).toBeGreaterThan(0.85);
      // A cell that is no number is bad input at its file and line.
      const bad = `${text
        .split("\n")
        .slice(0, 3)
        .join("\n")
        .replace(/^(\S+) \S+/m, "$1 x")}\n`;
      const badPath = join(dir, "bad.conll");
      await writeFile(badPath, bad);
      const badCorpus = inputForModel(
        await openCorpus(badPath, { format: "conll" }),
        loaded,
        "auto",
      );
      expect(() => attributesOf(loaded, badCorpus.sentences)).toThrow(LagrangeError);
      expect(() => attributesOf(loaded, badCorpus.sentences)).toThrow(
        /bad\.conll:1: column 2 is "x"; expected a number/,
      );
    });

    it("CRFsuite's format trains with its values, and the model exports to CRFsuite as is", async () => {
      const rows = await sentences(400);
      const instances: CrfsuiteInstance[] = rows.map((s) => ({
        labels: s.map((r) => r[2]!),
        items: s.map(([w, pos], t) => [
          { name: `w=${w}`, value: 1 },
          { name: `pos=${pos}`, value: 1 },
          { name: `pos[-1]=${s[t - 1]?.[1] ?? "BOS"}`, value: 1 },
          ...denseOf(w!).map((value, k) => ({ name: `d${k}`, value })),
        ]),
      }));
      // Through the file format, as `lagrange train --format crfsuite` reads it.
      const read = parseCrfsuite(formatCrfsuite(instances), { file: "c.crfsuite" });
      expect(read[5]!.items[0]!.find((a) => a.name === "d0")?.value).toBe(
        denseOf(rows[5]![0]![0]!)[0],
      );
      const train = { label: "c.crfsuite", instances: read.slice(0, 300) };
      const { model, scheme } = await trainOnCrfsuite(train, {
        algorithm: "lbfgs",
        maxIterations: 40,
      });
      expect(scheme).toBe("IOB2");
      expect(model.preset).toBeNull();
      expect(model.layout.startBase).toBe(-1);
      const exported = crfsuiteModelFromBytes(crfsuiteModelToBytes(model));
      let right = 0;
      let all = 0;
      for (const instance of read.slice(300)) {
        const x = fromAttributeLists(instance.items);
        // CRFsuite decodes with no scheme mask: so does the model asked to.
        expect(exported.tag(x)).toEqual(model.tag(x, { constraints: {} }));
        for (const [t, label] of model.tag(x).entries()) {
          all++;
          if (label === instance.labels[t]) right++;
        }
      }
      expect(right / all).toBeGreaterThan(0.85);
      // The values count: scaling one attribute's values changes the trained model's scores.
      const x = fromAttributeLists(read[300]!.items);
      const doubled = fromAttributeLists(
        read[300]!.items.map((item) =>
          item.map((a) => (a.name === "d0" ? { ...a, value: 2 * a.value } : a)),
        ),
      );
      expect(model.chainScores(doubled).unary).not.toEqual(model.chainScores(x).unary);
      // Instance weights are refused, not ignored.
      const weighted = {
        label: "w.crfsuite",
        instances: [{ ...read[0]!, weight: 2 }, ...read.slice(1, 5)],
      };
      await expect(trainOnCrfsuite(weighted, { maxIterations: 2 })).rejects.toThrow(
        /@weight:2: instance weights are not supported/,
      );
    });
  },
);
