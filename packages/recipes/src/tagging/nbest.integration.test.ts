import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { meetsRestriction } from "@lagrange/core";
import { FREE_LABEL, fixedLabelsRestriction } from "@lagrange/core/chain";
import { findSplitFile, openCorpus } from "@lagrange/datasets/node";
import { beforeAll, describe, expect, it } from "vitest";
import { openTagger } from "./open-tagger.js";
import type { TaggedSentence } from "./sequence-tagger.js";

// n-best and fixed labels through every decoder on a real corpus and model: the integration tier
// (nbest.test.ts has the small random chains).

const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a));

// A real model and its learned constraints: the playground's UMass citation model.
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const model = here("../../../../apps/playground/public/citation.model");
const constraints = here("../../../../apps/playground/public/citation.constraints.json");
const real =
  existsSync(model) &&
  existsSync(constraints) &&
  findSplitFile("umass-citations", "dev") !== undefined;
const why = "no UMass citations (LAGRANGE_DATA_DIR) or playground model";

describe.skipIf(!real)(`on real UMass dev citations — skipped if ${why}`, () => {
  let sentences: Awaited<ReturnType<typeof openCorpus>>["sentences"];
  beforeAll(async () => {
    sentences = (await openCorpus("umass-citations:dev", { malformed: "skip" })).sentences;
  });
  const open = (decoder: string, constrained: boolean) =>
    openTagger({
      model,
      decoder,
      ...(constrained ? { constraints: { source: constraints } } : {}),
    });
  const tagged = (item: unknown) => item as TaggedSentence;

  it("every decoder honours fixed labels, and a fixing that breaks the scheme is infeasible", async () => {
    const batch = sentences.slice(0, 6);
    for (const decoder of [
      "viterbi",
      "soft-dd",
      "hard-dd",
      "exact",
      "two-phase",
      "two-slave",
      "naive-dd",
      "bcrf",
      "mean-field",
      "greedy",
    ]) {
      const tagger = await open(decoder, !["viterbi", "bcrf", "mean-field"].includes(decoder));
      const names = tagger.labels;
      const L = names.length;
      // Every third token fixed to its gold label.
      const restrictions = batch.map((s) =>
        fixedLabelsRestriction(
          s.tokens.length,
          L,
          s.labels!.map((g, i) => (i % 3 === 0 ? names.indexOf(g) : FREE_LABEL)),
        ),
      );
      const free = await tagger.tag(batch);
      const forced = await tagger.tag(batch, { restrictions });
      let moved = 0;
      for (const [i, item] of forced.items.entries()) {
        const labels = tagged(item).labels;
        const ids = Int32Array.from(labels, (l) => names.indexOf(l));
        expect(meetsRestriction(restrictions[i]!, L, ids), decoder).toBe(true);
        if (labels.join() !== tagged(free.items[i]).labels.join()) moved++;
      }
      expect(moved, decoder).toBeGreaterThan(0);
    }
    // An inside label right after the start is what BIO forbids.
    const tagger = await open("viterbi", false);
    const inside = tagger.labels.findIndex((l) => l.startsWith("I-"));
    const s = sentences[0]!;
    const fixed = s.tokens.map((_, i) => (i === 0 ? inside : FREE_LABEL));
    const failed = await tagger.tag([s], {
      restrictions: [fixedLabelsRestriction(s.tokens.length, tagger.labels.length, fixed)],
    });
    expect(failed.items[0]).toMatchObject({ reason: expect.stringMatching(/no labelling meets/) });
  }, 120_000);

  it("Soft-DD's k best by Lawler–Murty equal the exact ILP's by no-good cuts", async () => {
    const batch = sentences.slice(0, 5);
    const dd = await (await open("soft-dd", true)).tag(batch, { nbest: { k: 3 } });
    const ilp = await (await open("exact", true)).tag(batch, { nbest: { k: 3 } });
    let certified = 0;
    for (const [i, item] of dd.items.entries()) {
      const a = tagged(item).nbest!;
      const b = tagged(ilp.items[i]).nbest!;
      expect(a.method).toBe("partition");
      expect(b.method).toBe("no-good-cuts");
      expect(b.entries.every((e) => e.certified)).toBe(true);
      expect(a.entries.map((e) => e.names.join(" "))).toEqual(
        b.entries.map((e) => e.names.join(" ")),
      );
      for (const [r, e] of a.entries.entries())
        expect(close(e.score, b.entries[r]!.score)).toBe(true);
      if (a.entries.every((e) => e.certified)) certified++;
    }
    expect(certified).toBeGreaterThan(0);
  }, 120_000);
});
