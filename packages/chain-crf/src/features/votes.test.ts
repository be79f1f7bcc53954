import { lagrangeErrorCode } from "@lagrange/core";
import { describe, expect, it } from "vitest";
import { attributeNames } from "./builder.js";
import { FeatureInputError } from "./errors.js";
import { describeSpec, featureExtractor, parseFeatureSpec } from "./spec.js";
import { NO_VOTE, voteFeatures } from "./votes.js";

describe("vote features", () => {
  const rows = [
    ["Paris", "NNP", "LOC", "LOC", "PER"],
    ["is", "VBZ", "O", NO_VOTE, "O"],
    ["paris", "NN", NO_VOTE, NO_VOTE, NO_VOTE],
  ];

  it("names each vote, alone and with the word's capitalisation; no vote gives nothing", () => {
    const words = featureExtractor({ base: "ner-words" });
    const voted = featureExtractor({ base: "ner-words", votes: { first: 2 } });
    const plain = attributeNames(words.extract(rows));
    const names = attributeNames(voted.extract(rows));
    const added = names.map((token, t) => token.filter((n) => !plain[t]!.includes(n)));
    expect(added).toEqual([
      [
        "vote:dtok=LOC",
        "vote:dtok=LOC&cap=1",
        "vote:dent=LOC",
        "vote:dent=LOC&cap=1",
        "vote:ctok=PER",
        "vote:ctok=PER&cap=1",
      ],
      ["vote:dtok=O", "vote:dtok=O&cap=0", "vote:ctok=O", "vote:ctok=O&cap=0"],
      [],
    ]);
  });

  it("refuses rows without the vote columns, saying what the model reads", () => {
    const features = voteFeatures(3);
    let caught: unknown;
    try {
      features.prepare([["Paris", "NNP", "I-NP"]]);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(FeatureInputError);
    expect((caught as Error).message).toMatch(
      /has 3 column\(s\); a two-stage model reads .* columns 4–6/,
    );
  });

  it("is checked in a model's feature spec and described", () => {
    expect(parseFeatureSpec({ base: "ner", votes: { first: 3 } }, "m.lgm").votes).toEqual({
      first: 3,
    });
    const bad: unknown[] = [
      ...[{ first: 0 }, { first: "3" }, [], null].map((votes) => ({ base: "ner", votes })),
      { base: "ner", columns: ["word", "pos"], votes: { first: 3 } },
    ];
    for (const spec of bad) {
      let caught: unknown;
      try {
        parseFeatureSpec(spec, "m.lgm");
      } catch (error) {
        caught = error;
      }
      expect(lagrangeErrorCode(caught)).toBe("bad-input");
      expect((caught as Error).message).toMatch(/^m\.lgm: features: votes/);
    }
    expect(describeSpec({ base: "ner", votes: { first: 3 } })).toMatch(
      /first-stage votes dtok, dent, ctok \(columns 4–6\)$/,
    );
  });
});
