import { describe, expect, it } from "vitest";
import { randomCorpus } from "../testing/random-corpus.js";
import { prepareTrainingData } from "../training-data.js";
import { profileCrfPass } from "./profile.js";

describe("profileCrfPass", () => {
  it("times every phase of the pass and counts each kernel's operations exactly", async () => {
    const sequences = randomCorpus(7, { sequences: 40, maxLength: 12, labels: 5, vocabulary: 30 });
    const { encoder } = prepareTrainingData(sequences, { shared: false });
    const profile = await profileCrfPass(encoder, { passes: 3, threads: 1, hotTokens: 20 });
    const L = encoder.numLabels;
    let tokens = 0;
    let squares = 0;
    for (let i = 0; i < encoder.numInstances; i++) {
      const n = encoder.instanceLength(i);
      tokens += n;
      squares += (n - 1) * L * L;
    }
    expect(profile.tokens).toBe(tokens);
    expect(profile.labels).toBe(L);
    const phase = (name: string) => profile.phases.find((p) => p.name === name)!;
    expect(phase("forward").operations).toBe(squares);
    expect(phase("backward").operations).toBe(squares);
    expect(phase("pairwise marginals").operations).toBe(squares);
    expect(phase("token marginals").operations).toBe(tokens * L);
    expect(phase("exponentials").operations).toBe(tokens * L + L * L);
    // Σ over attribute occurrences of their attributes' feature counts, walked independently.
    const { attributeOffsets } = encoder.layout;
    const { offsets, ids } = encoder.dataset.state;
    let features = 0;
    for (let k = offsets[0]!; k < offsets[encoder.dataset.numTokens]!; k++)
      features += attributeOffsets[ids[k]! + 1]! - attributeOffsets[ids[k]!]!;
    expect(phase("state scores").operations).toBe(features);
    expect(phase("feature expectations").operations).toBe(features);
    expect(profile.featureOccurrences).toBe(features);
    let shares = 0;
    for (const p of profile.phases) {
      expect(p.seconds).toBeGreaterThanOrEqual(0);
      expect(p.peakRatePerSecond).toBeGreaterThan(0);
      shares += p.share;
    }
    expect(shares).toBeCloseTo(1, 9);
    expect(profile.secondsPerPass).toBeGreaterThan(0);
    expect(profile.threaded).toBeNull();
  });
});
