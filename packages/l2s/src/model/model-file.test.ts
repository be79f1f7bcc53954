import { crc32 } from "@lagrange/core/bytes";
import { describe, expect, it } from "vitest";
import { HashedFeatures } from "../features/hashing.js";
import { createLearner } from "../learner/base-learner.js";
import { LearnedPolicy } from "../search/policy.js";
import {
  isL2sModelFile,
  L2sModelFileError,
  l2sModelFromBytes,
  l2sModelToBytes,
} from "./model-file.js";

function trainedPolicy(
  kind: "csoaa" | "perceptron",
  bits: number,
  examples: number,
): LearnedPolicy {
  const spaces = [
    { name: "a", actions: 3 },
    { name: "b", actions: 5 },
  ];
  const policy = new LearnedPolicy(
    spaces,
    spaces.map((s) => createLearner(s.actions, { kind, bits })),
  );
  const f = new HashedFeatures();
  for (let e = 0; e < examples; e++) {
    for (const learner of policy.learners) {
      f.clear();
      f.add(`x${e % 17}`);
      f.add(`y${e % 5}`, 0.5);
      const actions = Array.from({ length: learner.actions }, (_, a) => a);
      learner.update(
        f,
        actions,
        actions.map((a) => (a === e % learner.actions ? 0 : 1)),
        actions.length,
      );
    }
  }
  return policy;
}

function scores(policy: LearnedPolicy): number[] {
  const f = new HashedFeatures();
  const out: number[] = [];
  for (let e = 0; e < 20; e++) {
    f.clear();
    f.add(`x${e % 17}`);
    f.add(`y${e % 5}`, 0.5);
    for (const learner of policy.learners) {
      const s = new Float64Array(learner.actions);
      learner.addScores(f, s);
      out.push(...s);
    }
  }
  return out;
}

describe("L2S model files", () => {
  for (const kind of ["csoaa", "perceptron"] as const) {
    for (const [bits, examples, layout] of [
      [14, 40, "sparse"],
      [4, 200, "dense"],
    ] as const) {
      it(`round-trips a ${kind} policy stored ${layout}, predictions bit for bit`, () => {
        const policy = trainedPolicy(kind, bits, examples);
        const bytes = l2sModelToBytes({ task: "t", settings: { labels: ["x"], n: 1 }, policy });
        expect(isL2sModelFile(bytes)).toBe(true);
        const header = new TextDecoder().decode(
          bytes.subarray(16, 16 + new DataView(bytes.buffer).getUint32(12, true)),
        );
        expect(header.includes('"sparse"')).toBe(layout === "sparse");
        const back = l2sModelFromBytes(bytes);
        expect(back.task).toBe("t");
        expect(back.settings).toEqual({ labels: ["x"], n: 1 });
        expect(scores(back.policy)).toEqual(scores(policy));
      });
    }
  }

  it("names the file and the problem for corrupt, truncated or foreign bytes", () => {
    const bytes = l2sModelToBytes({
      task: "t",
      settings: {},
      policy: trainedPolicy("csoaa", 10, 10),
    });
    const flipped = bytes.slice();
    flipped[100] = flipped[100]! ^ 0xff;
    expect(() => l2sModelFromBytes(flipped, "m.l2s")).toThrow(/m\.l2s: checksum mismatch/);
    expect(() => l2sModelFromBytes(bytes.subarray(0, 40), "m.l2s")).toThrow(L2sModelFileError);
    expect(() =>
      l2sModelFromBytes(new TextEncoder().encode("hello world, not a model"), "m.l2s"),
    ).toThrow(/not a learning-to-search model file/);
  });
});

describe("L2S model file headers from elsewhere", () => {
  /** A file with `header` as its JSON and a valid checksum: only the reader's checks stop it. */
  function fileWith(header: unknown, payload = 0): Uint8Array {
    let json = new TextEncoder().encode(JSON.stringify(header));
    const padded = new Uint8Array(Math.ceil(json.length / 8) * 8).fill(0x20);
    padded.set(json);
    json = padded;
    const out = new Uint8Array(16 + json.length + payload + 4);
    const view = new DataView(out.buffer);
    out.set([0x4c, 0x47, 0x52, 0x4c, 0x32, 0x53, 0x0d, 0x0a], 0);
    view.setUint32(8, 1, true);
    view.setUint32(12, json.length, true);
    out.set(json, 16);
    view.setUint32(out.length - 4, crc32(out, 0, out.length - 4), true);
    return out;
  }
  const base = {
    format: "lagrange-l2s",
    task: "t",
    settings: {},
    actionSpaces: [{ name: "a", actions: 2 }],
  };

  it("refuses a null learner, a huge table and non-object settings with the file's own error", () => {
    for (const header of [
      { ...base, learners: [null] },
      { ...base, learners: [{ format: "l2s-perceptron", bits: 4, weightCount: 1e12, sparse: 0 }] },
      { ...base, learners: [{ format: "l2s-perceptron", bits: 40, weightCount: 16 }] },
      { ...base, settings: "hi", learners: [] },
    ]) {
      expect(() => l2sModelFromBytes(fileWith(header), "m.l2s")).toThrow(L2sModelFileError);
    }
  });

  it("checks declared table sizes against the file or the sparse bound before allocating", () => {
    const csoaa = {
      format: "l2s-csoaa",
      version: 1,
      actions: 2,
      learningRate: 0.5,
      powerT: 0.5,
      l2: 0,
      adaptive: true,
      normalized: true,
      invariant: true,
      examples: 0,
      totalWeight: 0,
      sumNormX: 0,
      contraction: 1,
    };
    const perceptron = { format: "l2s-perceptron", version: 1, actions: 2, updates: 1 };
    const cases: Array<[unknown, RegExp]> = [
      // The file: bits 30, 3·2^30 weights declared dense, 636 bytes.
      [
        { ...csoaa, bits: 30, weightCount: 3 * 2 ** 30 },
        /learner 0: its weight table declares 3221225472 weights \(12\.9 GB\) but the file has 0 bytes left/,
      ],
      [
        { ...csoaa, bits: 30, weightCount: 3 * 2 ** 30, sparse: 0 },
        /sparse weight tables of 3221225472 weights in all \(12\.9 GB once loaded\).*limited to 67108864 weights \(268 MB\)/,
      ],
      [{ ...perceptron, bits: 27, weightCount: 2 ** 27, sparse: 0 }, /limited to 67108864/],
      [
        { ...perceptron, bits: 10, weightCount: 2 ** 32 - 1 },
        /weightCount 4294967295; a l2s-perceptron table of 2\^10 entries holds 1024/,
      ],
      [{ ...perceptron, bits: 10, weightCount: -1 }, /weightCount -1/],
      [{ ...perceptron, bits: 10, weightCount: null }, /weightCount null/],
      [{ ...perceptron, bits: 10, weightCount: 2 ** 53 }, /weightCount 9007199254740992/],
      [{ ...perceptron, bits: 10, weightCount: 1024, sparse: -1 }, /sparse -1/],
      [{ ...perceptron, bits: 10, weightCount: 1024, sparse: 2 ** 31 - 1 }, /sparse 2147483647/],
      [{ ...perceptron, bits: 0, weightCount: 1 }, /bits 0/],
      [{ ...perceptron, bits: 10.5, weightCount: 1 }, /bits 10\.5/],
      [
        { ...csoaa, adaptive: "yes", bits: 4, weightCount: 48 },
        /without its adaptive and normalized flags/,
      ],
      [{ ...perceptron, format: "vw", bits: 4, weightCount: 16 }, /format "vw"/],
    ];
    for (const [learner, pattern] of cases) {
      expect(() => l2sModelFromBytes(fileWith({ ...base, learners: [learner] }), "m.l2s")).toThrow(
        pattern,
      );
    }
    // A sparse table within the bound whose file lacks its stored pairs: still the file's size.
    expect(() =>
      l2sModelFromBytes(
        fileWith({
          ...base,
          learners: [{ ...perceptron, bits: 20, weightCount: 2 ** 20, sparse: 1000 }],
        }),
        "m.l2s",
      ),
    ).toThrow(/declares 1000 stored weights \(8\.00 kB\) but the file has 0 bytes left/);
  });
});
