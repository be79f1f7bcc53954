import { constraintViolation } from "@lagrange/core";
import { decodingMask, readUmassCitationsFile } from "@lagrange/datasets";
import { findSplitFile } from "@lagrange/datasets/node";
import { describe, expect, it } from "vitest";
import { candidateTemplates, RULE_FAMILIES } from "./candidates.js";
import { importanceScores } from "./importance.js";
import { SegmentIndex } from "./segments.js";

const dev = findSplitFile("umass-citations", "dev");
const why = "no dataset mirror (set LAGRANGE_DATA_DIR or provide ../shared/datasets)";

describe("UMass citations (dev.docs)", () => {
  it.skipIf(dev === undefined)(
    `templates on real hierarchical labels — skipped if ${why}`,
    async () => {
      const { sentences } = await readUmassCitationsFile(dev!, { malformed: "skip" });
      expect(sentences.length).toBeGreaterThan(600);
      const names = [...new Set(sentences.flatMap((s) => s.labels!))].sort();
      const index = new SegmentIndex(names, "hierarchical-BIO");
      const L = names.length;
      const { allowed: mask, allowedStart: start } = decodingMask(names, "hierarchical-BIO")!;
      const id = new Map(names.map((name, i) => [name, i]));
      const encoded = sentences.map((s) => Int32Array.from(s.labels!, (name) => id.get(name)!));
      // Every gold labelling is BIO-valid under the mask.
      let invalid = 0;
      for (const y of encoded) {
        if (start[y[0]!] !== 1) invalid++;
        for (let i = 1; i < y.length; i++) if (mask[y[i - 1]! * L + y[i]!] !== 1) invalid++;
      }
      expect(invalid).toBe(0);

      const templates = candidateTemplates(index, {
        families: ["singleton", "hierarchical"],
        countUnit: "segment",
      });
      // The paper's unit: one count per full label with a B- somewhere ("about 100" of them).
      const byLabel = candidateTemplates(index, { families: ["singleton"] });
      expect(byLabel.length).toBe(index.countableKeys("label").length);
      expect(byLabel.length).toBeGreaterThan(60);
      const gold = encoded.map((y, d) => ({
        n: y.length,
        L,
        tokens: sentences[d]!.tokens,
        gold: y,
        predicted: y,
      }));
      const scores = importanceScores(templates, gold);
      const goldRate = (id: string) =>
        scores.find((s) => s.template.id === id)!.goldViolations / gold.length;
      // The paper's two best singletons hold almost always in the truth.
      expect(goldRate("singleton:title")).toBeLessThan(0.05);
      expect(goldRate("singleton:authors")).toBeLessThan(0.05);
      // Every person has a first name: the hierarchical pair rarely fails in either direction.
      expect(goldRate("hierarchical:authors/person|authors/person/person-first")).toBeLessThan(
        0.05,
      );

      // On real sentences the fast violation equals the instantiated constraints' violation.
      const sample = [
        ...templates.slice(0, 40),
        ...candidateTemplates(index, {
          families: RULE_FAMILIES,
          segments: ["authors", "title", "venue/journal"],
          delimiters: [","],
        }),
      ];
      for (const { n, tokens, gold: y } of gold.slice(0, 15)) {
        for (const t of sample) {
          const inst = { n, L, tokens };
          const direct = t.violation(y, inst);
          const instantiated = t
            .instantiate(inst)
            .reduce((s, c) => s + constraintViolation(c, y, L), 0);
          if (direct !== instantiated)
            expect({ id: t.id, direct }).toEqual({ id: t.id, direct: instantiated });
        }
      }
    },
  );
});
