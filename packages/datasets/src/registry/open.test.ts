import { describe, expect, it } from "vitest";
import { DATASETS } from "./catalog.js";
import { openDataset } from "./open.js";
import { findMirrorDir } from "./resolve.js";

const mirror = findMirrorDir();

/** The smallest non-sealed file split of each dataset, so the check stays quick. */
const smallest = DATASETS.map((dataset) => {
  const open = dataset.splits.filter((s) => s.sealed !== true);
  return { dataset, split: open.reduce((a, b) => ((a.bytes ?? 0) <= (b.bytes ?? 0) ? a : b)) };
});

describe("openDataset", () => {
  it.skipIf(mirror === undefined)(
    "reads the smallest split of every dataset with its format's reader; counts match SOURCE.md (skipped without the mirror)",
    async () => {
      for (const { dataset, split } of smallest) {
        const opened = await openDataset(dataset.name, split.name, {
          mirrorDir: mirror!,
          offline: true,
          malformed: "repair",
        });
        expect(opened.status, dataset.name).toBe("available");
        if (opened.status !== "available") continue;
        let tokens = opened.sentences.reduce((n, s) => n + s.tokens.length, 0);
        if (opened.report !== undefined && opened.report.repaired > 0) {
          // SOURCE.md counts a broken tag token such as `</<reference_id>` as a word; the
          // repairing reader turns it back into a tag, so a repaired line may hold one word less.
          const missing = split.counts!.tokens - tokens;
          expect(missing).toBeGreaterThanOrEqual(0);
          expect(missing).toBeLessThanOrEqual(opened.report.repaired);
          tokens += missing;
        }
        expect([dataset.name, split.name, opened.sentences.length, tokens]).toEqual([
          dataset.name,
          split.name,
          split.counts!.sequences,
          split.counts!.tokens,
        ]);
        for (const sentence of opened.sentences.slice(0, 50)) {
          expect(sentence.labels?.length).toBe(sentence.tokens.length);
        }
      }
    },
  );

  it.skipIf(mirror === undefined)(
    "cuts the customary Cora split out of the single file, and reports sealed splits absent",
    async () => {
      const options = { mirrorDir: mirror!, offline: true };
      const train = await openDataset("cora-references", "train", options);
      const test = await openDataset("cora-references", "test", options);
      expect(train.status === "available" && train.sentences.length).toBe(350);
      expect(test.status === "available" && test.sentences.length).toBe(150);
      const sealed = await openDataset("umass-citations", "test", options);
      expect(sealed.status).toBe("absent");
    },
  );
});
