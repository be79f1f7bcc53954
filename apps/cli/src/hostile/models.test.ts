/**
 * Hostile model files and training inputs (issue 28, slice C): model files for every reader — the
 * CRF's, the learning-to-search model's, a general CRF's settings, CRFsuite's — written by the real
 * writers, then patched to declare sizes, lengths and counts at their type's limits (with the
 * checksum recomputed where the format has one, so only the readers' own checks stop them), and
 * weights that are NaN, infinite or absurdly large. Each is given to the commands that read it;
 * each must end in exit 3 naming the file and the field, fast and without allocating by what it
 * declares. Then the training inputs: 10,000 distinct labels (refused before allocating, with
 * the figures and the flag to proceed) and a --min-freq above every count. The full matrix of
 * limits is in the readers' own tests; here each reader is driven end to end through the binary.
 */
import { writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type CrfModel,
  crfsuiteModelToBytes,
  fromAttributeLists,
  type LabelledSequence,
  loadModelFromBytes,
  modelFromTraining,
  modelToBytes,
  prepareTrainingData,
} from "@lagrange/chain-crf";
import { seededRandom } from "@lagrange/core";
import { crc32 } from "@lagrange/core/bytes";
import {
  createLearner,
  HashedFeatures,
  LearnedPolicy,
  l2sModelFromBytes,
  l2sModelToBytes,
} from "@lagrange/l2s";
import { generalCrfOf } from "@lagrange/recipes";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BoundedRun, expectBounded, runBounded } from "./harness.js";

/** Every case reads a few kilobytes: far below this unless a declared size is allocated. */
const MEMORY_MB = 400;
const TIMEOUT_MS = 30_000;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "lagrange-hostile-models-"));
  writeFileSync(join(dir, "data.txt"), "He PRP B-NP\nran VBD B-VP\n\n");
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const run = (args: readonly string[]): Promise<BoundedRun> =>
  runBounded(args, { cwd: dir, memoryMb: MEMORY_MB, timeoutMs: TIMEOUT_MS });

/** Writes `bytes` as `name` in the test directory and returns the name. */
function file(name: string, bytes: Uint8Array): string {
  writeFileSync(join(dir, name), bytes);
  return name;
}

/** Exit 3, one line naming the file and matching `reason`, within the caps. */
function expectMalformed(result: BoundedRun, name: string, reason: RegExp): void {
  expectBounded(result, 3);
  expect(result.stderr).toMatch(new RegExp(`^lagrange: ${name.replace(".", "\\.")}: `, "m"));
  expect(result.stderr).toMatch(reason);
}

// ---- the writers' files --------------------------------------------------------------------

function sequences(seed: number, labels: number): LabelledSequence[] {
  const random = seededRandom(seed);
  return Array.from({ length: 12 }, () => {
    const n = 1 + Math.floor(random() * 5);
    const tokens = Array.from({ length: n }, () => [`w=${Math.floor(random() * 9)}`, "bias"]);
    return {
      attributes: fromAttributeLists(tokens),
      labels: tokens.map(() => `L${Math.floor(random() * labels)}`),
    };
  });
}

/** A chain-CRF model with seeded random weights, but for `overrides` (index → weight). */
function crfModel(overrides: ReadonlyMap<number, number> = new Map(), startEnd = true): CrfModel {
  const data = prepareTrainingData(sequences(1, 3), { shared: false, startEnd });
  const random = seededRandom(2);
  const weights = Float64Array.from(
    { length: data.layout.numWeights },
    (_, k) => overrides.get(k) ?? random() * 2 - 1,
  );
  return modelFromTraining(data, weights, { preset: "chunking", settings: { scheme: "none" } });
}

/** An L2S tagger model (one csoaa learner over 3 actions, a few updates). */
function l2sBytes(): Uint8Array {
  const learner = createLearner(3, { kind: "csoaa", bits: 8 });
  const features = new HashedFeatures();
  for (let e = 0; e < 20; e++) {
    features.clear();
    features.add(`x${e % 7}`);
    learner.update(features, [0, 1, 2], [e % 3 === 0 ? 0 : 1, e % 3 === 1 ? 0 : 1, 1], 3);
  }
  const policy = new LearnedPolicy([{ name: "labels", actions: 3 }], [learner]);
  return l2sModelToBytes({ task: "sequence-labelling", settings: {}, policy });
}

// biome-ignore lint/suspicious/noExplicitAny: a crafted header holds whatever a case puts in it
type Header = any;

/**
 * A Lagrange model file (CRF or L2S: both are magic, version, header length, JSON header padded to
 * 8 bytes, binary part, CRC-32) with its header edited — as an object, then as text for what JSON
 * cannot say (1e999) — and its checksum recomputed.
 */
function reheader(
  bytes: Uint8Array,
  edit: (header: Header) => void,
  text: (json: string) => string = (json) => json,
): Uint8Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerLength = view.getUint32(12, true);
  const header = JSON.parse(new TextDecoder().decode(bytes.subarray(16, 16 + headerLength)));
  edit(header);
  const json = new TextEncoder().encode(text(JSON.stringify(header)));
  const padded = Math.ceil(json.length / 8) * 8;
  const binary = bytes.subarray(16 + headerLength, bytes.length - 4);
  const out = new Uint8Array(16 + padded + binary.length + 4).fill(0x20);
  out.set(bytes.subarray(0, 12));
  new DataView(out.buffer).setUint32(12, padded, true);
  out.set(json, 16);
  out.set(binary, 16 + padded);
  return withCrc(out);
}

/** The file with the u32 at `at` set to `value` (and the checksum recomputed when `crc`). */
function patchU32(bytes: Uint8Array, at: number, value: number, crc = true): Uint8Array {
  const out = bytes.slice();
  new DataView(out.buffer).setUint32(at, value, true);
  return crc ? withCrc(out) : out;
}

function withCrc(bytes: Uint8Array): Uint8Array {
  new DataView(bytes.buffer).setUint32(bytes.length - 4, crc32(bytes, 0, bytes.length - 4), true);
  return bytes;
}

const sectionOf = (header: Header, name: string) =>
  header.sections.find((s: { name: string }) => s.name === name);

describe.skipIf(process.platform !== "linux")(
  "hostile model files and training inputs (Linux: the harness reads /proc)",
  () => {
    describe.concurrent("chain-CRF model files (valid CRC)", () => {
      const base = modelToBytes(crfModel());

      it("the crafting keeps a file valid until a field is changed", () => {
        expect(loadModelFromBytes(reheader(base, () => {})).numLabels).toBe(3);
      });

      it("a weights section of length −1: tag says so (exit 3), not an internal error", async () => {
        const name = file(
          "minus-one.model",
          reheader(base, (h) => {
            sectionOf(h, "weights").length = -1;
          }),
        );
        const result = await run(["tag", "--model", name, "--data", "data.txt"]);
        expectMalformed(result, name, /section "weights" declares a length of -1/);
        expect(result.stderr).not.toMatch(/internal error|Invalid typed array length/);
      });

      it("2^32−1 weights declared: info refuses with the sizes, allocating nothing", async () => {
        const name = file(
          "huge-section.model",
          reheader(base, (h) => {
            sectionOf(h, "weights").length = 2 ** 32 - 1;
          }),
        );
        expectMalformed(
          await run(["info", name]),
          name,
          /section "weights" declares 4294967295 float32 values \(17\.2 GB\) at byte \d+ of the binary part, but the file has \d+ bytes left there/,
        );
      });

      it("huge and non-finite weights are refused with the first bad index (tag, info)", async () => {
        const huge = file(
          "huge-weights.model",
          modelToBytes(
            crfModel(
              new Map([
                [4, 1e308],
                [7, -1e308],
              ]),
            ),
            { precision: "float64" },
          ),
        );
        const nan = file("nan-weight.model", modelToBytes(crfModel(new Map([[2, Number.NaN]]))));
        const [tagged, shown] = await Promise.all([
          run(["tag", "--model", huge, "--data", "data.txt"]),
          run(["info", nan]),
        ]);
        expectMalformed(
          tagged,
          huge,
          /weight 4 \(byte \d+\) is 1e\+308: every weight must be a finite number of magnitude at most 1000000000/,
        );
        expectMalformed(shown, nan, /weight 2 \(byte \d+\) is NaN/);
      });
    });

    describe.concurrent("learning-to-search model files (valid CRC)", () => {
      const base = l2sBytes();
      /** The issue's file: bits 30 and 3·2^30 weights declared dense, 12.9 GB once loaded. */
      const dense = (h: Header) => {
        h.learners[0].bits = 30;
        h.learners[0].weightCount = 3 * 2 ** 30;
        delete h.learners[0].sparse;
      };

      it("the crafting keeps a file valid until a field is changed", () => {
        expect(l2sModelFromBytes(reheader(base, () => {})).task).toBe("sequence-labelling");
      });

      it("bits 30 with 3·2^30 dense weights: tag and info refuse at once (exit 3)", async () => {
        const name = file("dense-2-30.l2s", reheader(base, dense));
        const [tagged, shown] = await Promise.all([
          run(["tag", "--model", name, "--data", "data.txt"]),
          run(["info", name]),
        ]);
        for (const result of [tagged, shown]) {
          expectMalformed(
            result,
            name,
            /learner 0: its weight table declares 3221225472 weights \(12\.9 GB\) but the file has \d+ bytes left/,
          );
        }
        expect(base.length).toBeLessThan(4096);
      });

      it("the same table declared sparse with no stored weight: the sparse bound", async () => {
        const name = file(
          "sparse-2-30.l2s",
          reheader(base, (h) => {
            dense(h);
            h.learners[0].sparse = 0;
          }),
        );
        expectMalformed(
          await run(["tag", "--model", name, "--data", "data.txt"]),
          name,
          /sparse weight tables of 3221225472 weights in all \(12\.9 GB once loaded\).*limited to 67108864 weights/,
        );
      });
    });

    describe.concurrent("general-CRF settings in a model file (valid CRC)", () => {
      const model = crfModel();
      const settings = {
        groups: "documents",
        outsideLabel: 0,
        weights: [0.5, 0.1, 0.2, 0.1, 0.3, 0.1],
        subsequences: [[], [0, 1, 2], [0, 1, 1, 2]],
      };
      const base = modelToBytes(model.withSettings({ generalCrf: settings }));

      it("the crafting keeps a file valid until a field is changed", () => {
        expect(generalCrfOf(loadModelFromBytes(reheader(base, () => {})))).not.toBeNull();
      });

      it("an outside label of 2^31−1 and an infinite weight: tag refuses (exit 3)", async () => {
        const label = file(
          "outside.model",
          reheader(base, (h) => {
            h.generalCrf.outsideLabel = 2 ** 31 - 1;
          }),
        );
        const infinite = file(
          "infinite.model",
          reheader(
            base,
            (h) => {
              h.generalCrf.weights[0] = 12345;
            },
            (json) => json.replace("12345", "1e999"),
          ),
        );
        const [first, second] = await Promise.all([
          run(["tag", "--model", label, "--data", "data.txt", "--decoder", "two-slave"]),
          run(["tag", "--model", infinite, "--data", "data.txt", "--decoder", "two-slave"]),
        ]);
        expectMalformed(
          first,
          label,
          /general-CRF settings are malformed: outsideLabel 2147483647 \(3 labels\)/,
        );
        expectMalformed(
          second,
          infinite,
          /general-CRF settings are malformed: weights: expected 6 finite numbers/,
        );
      });
    });

    describe.concurrent("CRFsuite model files", () => {
      const base = crfsuiteModelToBytes(crfModel(new Map(), false));

      it("2^32−1 labels declared (an L² table of 148 EB): import refuses (exit 3)", async () => {
        const name = file("labels.crfsuite", patchU32(base, 20, 2 ** 32 - 1, false));
        expectMalformed(
          await run(["import", "--from", "crfsuite", name, "--out", "a.model"]),
          name,
          /the header declares 4294967295 labels: their dense transition table would take 148 EB; importing supports at most 4096 labels/,
        );
      });

      it("given to tag or info, a CRFsuite model is pointed at lagrange import", async () => {
        const name = file("real.crfsuite", base);
        const [tagged, shown] = await Promise.all([
          run(["tag", "--model", name, "--data", "data.txt"]),
          run(["info", name]),
        ]);
        for (const result of [tagged, shown]) {
          expectMalformed(
            result,
            name,
            /a CRFsuite model, not a Lagrange one: convert it with lagrange import --from crfsuite real\.crfsuite --out real\.model/,
          );
        }
      });
    });

    describe.concurrent("training inputs", () => {
      it("10,000 distinct labels: refused before allocating, with the figures and the flag", async () => {
        const random = seededRandom(3);
        const lines: string[] = [];
        for (let label = 0; label < 10_000; label++) {
          lines.push(`w${Math.floor(random() * 3000)} NN L${label}`);
          if (label % 10 === 9) lines.push("");
        }
        writeFileSync(join(dir, "labels.txt"), `${lines.join("\n")}\n`);
        const result = await run([
          "train",
          ...["--data", "labels.txt", "--format", "conll", "--preset", "chunking"],
          ...["--out", "labels.model"],
        ]);
        expectBounded(result, 2);
        expect(result.stderr).toMatch(
          /^lagrange: training would need about \d+\.\d GB, more than the [\d.]+ GB allowed \(.* in use and .* more: 10,000 labels \(100,000,000 label pairs\) and [\d,]+ attributes → [\d,]+ weights \(\d+ MB each copy; training keeps 19: .*\); pass --max-memory \d+G to proceed/m,
        );
      });

      it("--learner l2s --bits 30: refused before its tables exist, with their size", async () => {
        const result = await run([
          "train",
          ...["--learner", "l2s", "--task", "pos", "--bits", "30"],
          ...["--data", "data.txt", "--format", "conll", "--out", "l2s.model"],
        ]);
        expectBounded(result, 2);
        expect(result.stderr).toMatch(
          /^lagrange: --bits 30: the csoaa learner's hashed weight table of 2\^30 entries would need about 25\.8 GB in training, more than the [\d.]+ GB allowed; lower --bits, or pass --max-memory \d+G to proceed$/m,
        );
      });

      it("--min-freq above every count: a usage error naming the highest count", async () => {
        const lines: string[] = [];
        for (let s = 0; s < 30; s++) lines.push("The DT B-NP", "cat NN I-NP", "sat VBD B-VP", "");
        writeFileSync(join(dir, "small.txt"), lines.join("\n"));
        const result = await run([
          "train",
          ...["--data", "small.txt", "--format", "conll", "--preset", "chunking"],
          ...["--min-freq", "1000", "--out", "small.model"],
        ]);
        expectBounded(result, 2);
        expect(result.stderr).toMatch(
          /^lagrange: --min-freq 1000 removes every attribute \(the most frequent occurs (\d+) times\).*lower it to \1 or less$/m,
        );
      });
    });
  },
);
