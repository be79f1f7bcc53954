import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AttributeSequence, fromAttributeLists, trainCrf } from "@lagrange/chain-crf";
import { seededRandom } from "@lagrange/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadCrfsuiteBinding } from "../systems/crfsuite-binding.js";
import { interopCheck, type LabelledSplit, trainWithCrfsuite } from "./crfsuite-interop.js";

/**
 * A generated chunking-like task: a word's class decides its likely label, the previous label
 * shifts it, and ambiguous words make the transitions matter. `__BOS__` / `__EOS__` mark the
 * sequence ends as CRFsuite's feature scripts (and the chunking preset) do.
 */
function generated(seed: number, count: number): LabelledSplit {
  const rnd = seededRandom(seed);
  const labels = ["B-NP", "I-NP", "B-VP", "O"];
  const attributes: AttributeSequence[] = [];
  const gold: string[][] = [];
  for (let s = 0; s < count; s++) {
    const n = 1 + Math.floor(rnd() * 9);
    const tokens: string[][] = [];
    const y: string[] = [];
    let prev = 3;
    for (let t = 0; t < n; t++) {
      const word = Math.floor(rnd() * 40);
      let label = word % 4;
      if (rnd() < 0.3) label = prev === 0 ? 1 : label;
      if (rnd() < 0.1) label = Math.floor(rnd() * 4);
      const names = [`w=${word}`, `c=${word % 7}`, `w[-1]=${t > 0 ? tokens[t - 1]![0] : "none"}`];
      if (t === 0) names.push("__BOS__");
      if (t === n - 1) names.push("__EOS__");
      tokens.push(names);
      y.push(labels[label]!);
      prev = label;
    }
    attributes.push(fromAttributeLists(tokens));
    gold.push(y);
  }
  return { attributes, labels: gold };
}

const crfsuite = loadCrfsuiteBinding();

describe.skipIf(crfsuite === null)("CRFsuite interop against the crfsuite npm binding", () => {
  let workDir = "";
  beforeAll(async () => {
    workDir = await mkdtemp(join(tmpdir(), "lagrange-crfsuite-test-"));
  });
  afterAll(async () => {
    await rm(workDir, { recursive: true, force: true });
  });

  it("imports a CRFsuite model and exports a Lagrange one: identical tags both ways", async () => {
    const train = generated(1, 300);
    const test = generated(2, 200);
    const crfsuiteBytes = await trainWithCrfsuite(
      crfsuite!,
      train,
      { c2: 1, maxIterations: 40 },
      workDir,
    );
    const lagrange = await trainCrf(
      train.attributes.map((attributes, i) => ({ attributes, labels: train.labels[i]! })),
      { algorithm: "lbfgs", c2: 1, maxIterations: 40, threads: 1 },
    );
    const check = await interopCheck(
      crfsuite!,
      crfsuiteBytes,
      lagrange.model,
      test.attributes,
      workDir,
    );
    expect(check.imported.tokens).toBeGreaterThan(500);
    expect(check.imported.identicalTokens).toBe(check.imported.tokens);
    expect(check.exported.identicalTokens).toBe(check.exported.tokens);
    expect(check.exported.identicalSentences).toBe(test.attributes.length);
  }, 60_000);
});
