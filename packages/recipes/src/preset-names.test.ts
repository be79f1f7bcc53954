import { LagrangeError } from "@lagrange/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  checkPresetName,
  editDistance,
  getTaskPreset,
  nearestName,
  presetNames,
} from "./preset-names.js";

describe("preset names", () => {
  it("edit distance is a metric: zero only on equal strings, symmetric, one per single edit", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 12 }), fc.string({ maxLength: 12 }), (a, b) => {
        expect(editDistance(a, b)).toBe(editDistance(b, a));
        expect(editDistance(a, b) === 0).toBe(a === b);
        expect(editDistance(a, `${a}x`)).toBe(1);
        expect(editDistance(a, b)).toBeLessThanOrEqual(Math.max(a.length, b.length));
      }),
    );
  });

  it("suggests the name one typo away, of either kind, and lists both kinds", () => {
    const { base, task } = presetNames();
    for (const name of [...base, ...task]) {
      checkPresetName(name);
      const typo = `${name.slice(0, 1)}${name.slice(2)}`; // one letter dropped
      expect(nearestName(typo, [...base, ...task])).toBeDefined();
    }
    expect(() => checkPresetName("ner_en")).toThrow(
      /unknown preset "ner_en" \(did you mean ner-en\?\); feature presets: .*chunking.*; task presets: .*pos-en/,
    );
    expect(() => checkPresetName("ner_en")).toThrow(LagrangeError);
    expect(() => checkPresetName("ner-en", false)).toThrow(/feature presets: [^;]*$/);
    expect(nearestName("zzzzzzzz", [...base, ...task])).toBeUndefined();
  });

  it("getTaskPreset refuses other names with --preset's message, and a feature preset as such", () => {
    for (const name of presetNames().task) expect(getTaskPreset(name).name).toBe(name);
    expect(() => getTaskPreset("ner_en")).toThrow(
      /unknown preset "ner_en" \(did you mean ner-en\?\); feature presets: .*; task presets: /,
    );
    expect(() => getTaskPreset("ner")).toThrow(/"ner" is a feature preset, not a task preset/);
  });
});
