import {
  BCRF_DECODING_DEFAULTS,
  BCRF_DEFAULT_ITERATIONS,
  MEAN_FIELD_DEFAULTS,
  TRAINING_OBJECTIVES,
} from "@lagrange/bcrf";
import { TRAINING_ALGORITHMS } from "@lagrange/chain-crf";
import { RULE_FAMILIES } from "@lagrange/constraint-templates";
import { BYTE_SIZE_UNITS, parseByteSize as coreByteSize } from "@lagrange/core/bytes";
import { MAX_ITERATIONS } from "@lagrange/core/dual-decomposition";
import { SCHEME_NAMES } from "@lagrange/datasets";
import {
  DEFAULT_TAU,
  DEFAULT_TIME_LIMIT_SECONDS,
  ILP_OPTION_RANGES,
  MAX_TIME_LIMIT_SECONDS,
  MIN_TIME_LIMIT_SECONDS,
  RULE_COST_POLICIES,
  RULE_MINING_DEFAULTS,
} from "@lagrange/ilp";
import { BASE_LEARNERS, ROLL_INS, ROLL_OUTS } from "@lagrange/l2s";
import { TWEET_GROUP_DEFAULTS } from "@lagrange/mincut";
import {
  DEFAULT_DECODERS,
  GENERAL_CRF_DEFAULTS,
  GROUPING_KINDS,
  presetNames,
  STANDARD_DECODERS,
} from "@lagrange/recipes";
import { PENALTY_ALGORITHMS } from "@lagrange/soft-dd";
import { describe, expect, it } from "vitest";
import { BYTE_UNITS, parseByteSize } from "./train-values.js";
import * as values from "./values.js";
import { PACKAGE_DEFAULTS, parseTau, parseTimeLimit } from "./values.js";

describe("sizes a user types", () => {
  it("are read with core's units and give core's bytes (--max-memory, LAGRANGE_MAX_INPUT)", () => {
    expect(BYTE_UNITS).toEqual(BYTE_SIZE_UNITS);
    for (const text of ["8G", "512MB", "1.5GiB", "2e9", "100", "3kib"]) {
      expect(parseByteSize(text)).toBe(coreByteSize(text));
    }
    expect(coreByteSize("8 parsecs")).toBeUndefined();
    expect(coreByteSize("0")).toBeUndefined();
  });
});

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
    expect(d.chunkSchemes).toEqual([...SCHEME_NAMES]);
    expect(d.generalCrf).toEqual(GENERAL_CRF_DEFAULTS);
    expect(d.baseLearners).toEqual([...BASE_LEARNERS]);
    expect(d.rollIns).toEqual([...ROLL_INS]);
    expect(d.rollOuts).toEqual([...ROLL_OUTS]);
    expect(d.tweetGroups).toEqual(TWEET_GROUP_DEFAULTS);
    expect(d.ilp).toEqual(ILP_OPTION_RANGES);
    expect(d.ilpDefaults).toEqual({
      timeLimitSeconds: DEFAULT_TIME_LIMIT_SECONDS,
      minTimeLimitSeconds: MIN_TIME_LIMIT_SECONDS,
      tau: DEFAULT_TAU,
    });
    expect(values.MAX_TIME_LIMIT_SECONDS).toBe(MAX_TIME_LIMIT_SECONDS);
    expect(d.maxIterations).toBe(MAX_ITERATIONS);
    expect(d.presets).toEqual(presetNames());
    expect(d.decoders).toEqual(STANDARD_DECODERS.map((definition) => definition.name));
    expect(d.patternDecoders).toEqual(
      STANDARD_DECODERS.filter((definition) => definition.accepts.patterns === true).map(
        (definition) => definition.name,
      ),
    );
    expect(d.defaultDecoder).toBe(DEFAULT_DECODERS["chain-crf"]);
  });
});

describe("--time-limit and --tau", () => {
  const absurd = ["0", "-1", "NaN", "Infinity", "1e308", "1e-320", "", " ", "ten", "0x"];
  it("refuse absurd values with the range they take (a usage error naming the option)", () => {
    for (const value of absurd) {
      expect(() => parseTimeLimit(value)).toThrow(/expected seconds from 0\.001 to 2147483/);
      expect(() => parseTau(value)).toThrow(/expected a number in \[1e-300, 1\]/);
    }
    // 2^31 ms is one past what the ILP decoders take; 1e-301 is below the least τ.
    expect(() => parseTimeLimit("2147484")).toThrow(/expected seconds/);
    expect(() => parseTau("1e-301")).toThrow(/expected a number/);
  });

  it("take the ends of their ranges", () => {
    expect([parseTimeLimit("0.001"), parseTimeLimit("10"), parseTimeLimit("2147483")]).toEqual([
      0.001, 10, 2147483,
    ]);
    expect([parseTau("1e-300"), parseTau("0.1"), parseTau("1")]).toEqual([1e-300, 0.1, 1]);
  });
});
