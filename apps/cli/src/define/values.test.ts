import {
  BCRF_DECODING_DEFAULTS,
  BCRF_DEFAULT_ITERATIONS,
  MEAN_FIELD_DEFAULTS,
  TRAINING_OBJECTIVES,
} from "@lagrange/bcrf";
import { TRAINING_ALGORITHMS } from "@lagrange/chain-crf";
import { RULE_FAMILIES } from "@lagrange/constraint-templates";
import { RULE_COST_POLICIES, RULE_MINING_DEFAULTS } from "@lagrange/ilp";
import { BASE_LEARNERS, ROLL_INS, ROLL_OUTS } from "@lagrange/l2s";
import { TWEET_GROUP_DEFAULTS } from "@lagrange/mincut";
import { GENERAL_CRF_DEFAULTS, GROUPING_KINDS } from "@lagrange/recipes";
import { PENALTY_ALGORITHMS } from "@lagrange/soft-dd";
import { describe, expect, it } from "vitest";
import { PACKAGE_DEFAULTS } from "./values.js";

describe("the command declarations' copies of the packages' choices and defaults", () => {
  it("equal the packages' own (--help shows these; the commands run with the packages')", () => {
    const d = PACKAGE_DEFAULTS;
    expect(d.penaltyAlgorithms).toEqual([...PENALTY_ALGORITHMS]);
    expect(d.ruleFamilies).toEqual([...RULE_FAMILIES]);
    expect(d.ruleCostPolicies).toEqual([...RULE_COST_POLICIES]);
    const { includeOutside: _, ...mining } = RULE_MINING_DEFAULTS;
    expect(d.ruleMining).toEqual(mining);
    expect(d.bcrfDecodingIterations).toBe(BCRF_DECODING_DEFAULTS.iterations);
    expect(d.meanFieldIterations).toBe(MEAN_FIELD_DEFAULTS.iterations);
    expect(d.bcrfTrainingIterations).toBe(BCRF_DEFAULT_ITERATIONS);
    expect(d.trainingObjectives).toEqual([...TRAINING_OBJECTIVES]);
    expect(d.trainingAlgorithms).toEqual([...TRAINING_ALGORITHMS]);
    expect(d.groupingKinds).toEqual([...GROUPING_KINDS]);
    expect(d.generalCrf).toEqual(GENERAL_CRF_DEFAULTS);
    expect(d.baseLearners).toEqual([...BASE_LEARNERS]);
    expect(d.rollIns).toEqual([...ROLL_INS]);
    expect(d.rollOuts).toEqual([...ROLL_OUTS]);
    expect(d.tweetGroups).toEqual(TWEET_GROUP_DEFAULTS);
  });
});
