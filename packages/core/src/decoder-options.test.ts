import { describe, expect, it } from "vitest";
import {
  DecoderRegistry,
  dualDecompositionDecoder,
  RegistryError,
  viterbiDefinition,
} from "./decoder.js";
import {
  type DecoderOptionSpec,
  DUAL_DECOMPOSITION_OPTIONS,
  describeDecoderOptions,
  ETA_OPTION,
  EXACT_OPTION,
  MAX_ITERATIONS_OPTION,
  parseDecoderOption,
  resolveDecoderOptions,
  STEP_OPTION,
  TIME_LIMIT_OPTION,
  TOLERANCE_OPTION,
} from "./decoder-options.js";
import type { DecoderDefinition } from "./decoder-types.js";
import { exactDecoding } from "./decoding.js";
import { LagrangeError, lagrangeErrorCode } from "./errors.js";
import { installPlugin } from "./plugin.js";
import { MAX_ITERATIONS } from "./solver.js";

const seconds: DecoderOptionSpec = {
  name: "time-limit",
  key: "timeLimitMs",
  type: "number",
  help: "per-sentence limit",
  default: 10,
  min: 0.001,
  max: 2147483,
  scale: 1000,
  unit: "seconds",
};

const mode: DecoderOptionSpec = {
  name: "mode",
  key: "mode",
  type: "choice",
  help: "how",
  default: "fast",
  choices: ["fast", "slow"],
};

const verbose: DecoderOptionSpec = {
  name: "verbose",
  key: "verbose",
  type: "boolean",
  help: "say more",
  default: false,
};

const positive: DecoderOptionSpec = {
  name: "rate",
  key: "rate",
  type: "number",
  help: "a rate",
  default: 0.5,
  above: 0,
  max: 1,
};

function definition(options?: readonly DecoderOptionSpec[], name = "mine"): DecoderDefinition {
  return {
    name,
    description: "test",
    accepts: { constraints: false, slaves: false },
    ...(options === undefined ? {} : { options }),
    create: () => ({ name, decode: () => exactDecoding(new Int32Array(0), 0) }),
  };
}

function thrown(run: () => unknown): Error {
  try {
    run();
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected it to throw");
}

describe("parseDecoderOption", () => {
  it("reads integers, numbers, booleans and choices from strings", () => {
    expect(parseDecoderOption("d", MAX_ITERATIONS_OPTION, " 50 ")).toBe(50);
    expect(parseDecoderOption("d", seconds, "2.5")).toBe(2.5);
    expect(parseDecoderOption("d", verbose, "true")).toBe(true);
    expect(parseDecoderOption("d", verbose, "no")).toBe(false);
    expect(parseDecoderOption("d", mode, "slow")).toBe("slow");
  });

  it("takes typed values as they are, checked", () => {
    expect(parseDecoderOption("d", MAX_ITERATIONS_OPTION, 7)).toBe(7);
    expect(parseDecoderOption("d", verbose, true)).toBe(true);
    expect(() => parseDecoderOption("d", MAX_ITERATIONS_OPTION, true)).toThrow(
      /expected an integer/,
    );
  });

  it("checks ranges: inclusive min/max, exclusive above, integers", () => {
    expect(parseDecoderOption("d", MAX_ITERATIONS_OPTION, "1")).toBe(1);
    expect(parseDecoderOption("d", MAX_ITERATIONS_OPTION, String(MAX_ITERATIONS))).toBe(
      MAX_ITERATIONS,
    );
    for (const bad of ["0", String(MAX_ITERATIONS + 1), "1.5", "", "abc", "Infinity", "1e308"]) {
      expect(() => parseDecoderOption("soft-dd", MAX_ITERATIONS_OPTION, bad)).toThrow(
        `decoder "soft-dd" option "max-iterations": expected an integer from 1 to ${MAX_ITERATIONS}, got ${JSON.stringify(bad)}`,
      );
    }
    expect(parseDecoderOption("d", positive, "1")).toBe(1);
    expect(() => parseDecoderOption("d", positive, "0")).toThrow(
      'option "rate": expected a number > 0 and ≤ 1, got "0"',
    );
    expect(() => parseDecoderOption("d", seconds, "0.0001")).toThrow(
      "expected a number in [0.001, 2147483]",
    );
    expect(() => parseDecoderOption("d", TOLERANCE_OPTION, "-1")).toThrow("expected a number ≥ 0");
    expect(() => parseDecoderOption("d", mode, "medium")).toThrow("expected one of fast, slow");
    expect(() => parseDecoderOption("d", verbose, "maybe")).toThrow("expected true or false");
  });

  it("is a usage error", () => {
    const error = thrown(() => parseDecoderOption("d", MAX_ITERATIONS_OPTION, "x"));
    expect(error).toBeInstanceOf(LagrangeError);
    expect((error as LagrangeError).code).toBe("usage");
  });
});

describe("resolveDecoderOptions", () => {
  const ilpLike = definition([seconds, { ...positive, name: "tau", key: "tau", default: 0.1 }]);

  it("gives every declared option at its default, scaled, under its key", () => {
    expect(resolveDecoderOptions(ilpLike, {})).toEqual({ timeLimitMs: 10_000, tau: 0.1 });
  });

  it("parses what was given, by name, and scales it", () => {
    expect(resolveDecoderOptions(ilpLike, { "time-limit": "0.5", tau: 0.25 })).toEqual({
      timeLimitMs: 500,
      tau: 0.25,
    });
  });

  it("names the decoder and what it takes for an option it does not declare", () => {
    expect(() => resolveDecoderOptions(viterbiDefinition, { tau: "0.1" })).toThrow(
      'decoder "viterbi" has no option "tau"; it takes no options',
    );
    const dd = definition([MAX_ITERATIONS_OPTION, TOLERANCE_OPTION], "soft-dd");
    const error = thrown(() => resolveDecoderOptions(dd, { "time-limit": "3" }));
    expect(error.message).toBe(
      'decoder "soft-dd" has no option "time-limit"; its options: max-iterations, tolerance',
    );
    expect((error as LagrangeError).code).toBe("usage");
  });

  it("reports a bad value with the decoder and option", () => {
    expect(() => resolveDecoderOptions(ilpLike, { "time-limit": "-1" })).toThrow(
      'decoder "mine" option "time-limit": expected a number in [0.001, 2147483], got "-1"',
    );
  });

  it("sets the master's options: the DD decoder runs at most max-iterations", () => {
    const dd = definition([MAX_ITERATIONS_OPTION, TOLERANCE_OPTION], "dd");
    const options = resolveDecoderOptions(dd, { "max-iterations": "3" });
    expect(options).toEqual({ maxIterations: 3, tolerance: 1e-6 });
    // Two slaves that never agree: the run goes to the cap.
    const decoder = dualDecompositionDecoder("dd", {});
    const scores = { n: 1, L: 2, unary: Float64Array.of(0, 0), transition: new Float64Array(4) };
    const stubborn = {
      slave: {
        name: "stubborn",
        n: 1,
        L: 2,
        maximize: (adjustment: Float64Array) => ({
          labels: Int32Array.of(1),
          value: 5 + adjustment[1]!,
        }),
        score: (labels: ArrayLike<number>) => (labels[0] === 1 ? 5 : 0),
      },
    };
    const decoding = decoder.decode({ scores, slaves: [stubborn] }, options);
    expect(decoding.iterations).toBeLessThanOrEqual(3);
  });
});

describe("the dual-decomposition master's options (step, eta, exact, time limit)", () => {
  const dd = definition(DUAL_DECOMPOSITION_OPTIONS, "soft-dd");

  it("pass the registry's checks and default to the master's own behaviour", () => {
    new DecoderRegistry().addDecoder(dd);
    expect(DUAL_DECOMPOSITION_OPTIONS).toEqual([
      MAX_ITERATIONS_OPTION,
      TOLERANCE_OPTION,
      STEP_OPTION,
      ETA_OPTION,
      EXACT_OPTION,
      TIME_LIMIT_OPTION,
    ]);
    expect(resolveDecoderOptions(dd, {})).toEqual({
      maxIterations: 200,
      tolerance: 1e-6,
      step: "auto",
      eta: 1,
      exact: false,
      timeLimitMs: 10_000,
    });
  });

  it("read the AD3 step, its η and exact mode from strings", () => {
    expect(resolveDecoderOptions(dd, { step: "ad3", eta: "0.5", exact: "yes" })).toEqual({
      maxIterations: 200,
      tolerance: 1e-6,
      step: "ad3",
      eta: 0.5,
      exact: true,
      timeLimitMs: 10_000,
    });
    expect(resolveDecoderOptions(dd, { step: "ad3", exact: "false" }).exact).toBe(false);
  });

  it("refuse η and exact mode without the AD3 step, naming both options (they would do nothing)", () => {
    const cases = [
      [{ exact: "true" }, {}, "ad3", "auto"],
      [{ exact: "false" }, { step: "subgradient" }, "ad3", "subgradient"],
      [{ eta: "2" }, { step: "subgradient" }, "ad3 or auto", "subgradient"],
    ] as const;
    for (const [given, step, needed, actual] of cases) {
      {
        const name = Object.keys(given)[0]!;
        const caught = (() => {
          try {
            resolveDecoderOptions(dd, { ...given, ...step });
          } catch (error) {
            return error;
          }
          return undefined;
        })();
        expect(caught).toBeInstanceOf(LagrangeError);
        expect(lagrangeErrorCode(caught)).toBe("usage");
        expect((caught as Error).message).toBe(
          `decoder "soft-dd": --${name} has no effect unless --step is ${needed} (it is "${actual}"); add --step ad3 or drop --${name}`,
        );
      }
    }
  });

  it("every option that applies only with another names one the decoder declares, with values it takes", () => {
    for (const spec of DUAL_DECOMPOSITION_OPTIONS) {
      const when = spec.appliesWhen;
      if (when === undefined) continue;
      const other = DUAL_DECOMPOSITION_OPTIONS.find((o) => o.name === when.option);
      expect(other, spec.name).toBeDefined();
      for (const value of when.values) {
        expect(parseDecoderOption("soft-dd", other!, value)).toBe(value);
      }
    }
    const orphan = { ...ETA_OPTION, appliesWhen: { option: "step", values: ["newton"] } };
    expect(() =>
      new DecoderRegistry().addDecoder(definition([STEP_OPTION, orphan], "bad-dd")),
    ).toThrow(/decoder "bad-dd" option "eta": appliesWhen: expected another option/);
    expect(() => new DecoderRegistry().addDecoder(definition([ETA_OPTION], "lone-dd"))).toThrow(
      /decoder "lone-dd" option "eta": appliesWhen/,
    );
  });

  it("refuse an unknown step, an η ≤ 0 and a non-boolean exact, naming the decoder", () => {
    expect(() => resolveDecoderOptions(dd, { step: "newton" })).toThrow(
      'decoder "soft-dd" option "step": expected one of subgradient, ad3, auto, got "newton"',
    );
    for (const eta of ["0", "-1", "1e-320", "1e308", "Infinity", "x"]) {
      expect(() => resolveDecoderOptions(dd, { eta })).toThrow(
        `decoder "soft-dd" option "eta": expected a number in [0.000001, 1000000], got "${eta}"`,
      );
    }
    expect(() => resolveDecoderOptions(dd, { exact: "maybe" })).toThrow(
      'decoder "soft-dd" option "exact": expected true or false, got "maybe"',
    );
  });

  it("are refused by a decoder that does not run the master", () => {
    expect(() => resolveDecoderOptions(viterbiDefinition, { step: "ad3" })).toThrow(
      'decoder "viterbi" has no option "step"; it takes no options',
    );
  });

  it("have one help line each", () => {
    expect(describeDecoderOptions(dd).slice(2)).toEqual([
      "--step: the master's step: subgradient (projected subgradient), ad3 (augmented Lagrangian, Martins et al. 2015), or auto (subgradient, then ad3 where it stalls uncertified) (one of subgradient, ad3, auto; default auto)",
      "--eta: with --step ad3 or auto: AD3's initial quadratic penalty (adapted) (a number in [0.000001, 1000000]; default 1)",
      "--exact: with --step ad3: branch and bound until the gap closes (exact MAP) (true or false; default false)",
      "--time-limit: per-sentence time limit for all of a sentence's solves (n-best's included); a sentence that hits it keeps the best labelling found (a number in [0.001, 2147483] seconds; default 10 seconds)",
    ]);
  });
});

describe("describeDecoderOptions", () => {
  it("gives one help line per option with its range, unit and default", () => {
    expect(describeDecoderOptions(definition([seconds, mode]))).toEqual([
      "--time-limit: per-sentence limit (a number in [0.001, 2147483] seconds; default 10 seconds)",
      "--mode: how (one of fast, slow; default fast)",
    ]);
    expect(describeDecoderOptions(viterbiDefinition)).toEqual([]);
  });
});

describe("DecoderRegistry checks option specs", () => {
  const bad: [string, Partial<DecoderOptionSpec>, RegExp][] = [
    ["a name that is not kebab-case", { name: "maxIterations" }, /expected kebab-case/],
    ["a name with a leading hyphen", { name: "-x" }, /expected kebab-case/],
    [
      "an unknown type",
      { type: "float" as "number" },
      /expected integer, number, boolean or choice/,
    ],
    ["a default below min", { default: 0 }, /default 0: expected an integer from 1/],
    ["a default of the wrong type", { default: "200" }, /default "200"/],
    ["a non-integer default", { default: 1.5 }, /default 1.5/],
    ["a scale of 0", { scale: 0 }, /scale 0: expected a finite number > 0/],
    ["a missing key", { key: "" }, /key "": expected an identifier/],
    ["a choice without choices", { type: "choice", default: "a" }, /non-empty list of choices/],
  ];
  for (const [what, change, message] of bad) {
    it(`refuses ${what}`, () => {
      const registry = new DecoderRegistry();
      const error = thrown(() =>
        registry.addDecoder(definition([{ ...MAX_ITERATIONS_OPTION, ...change }])),
      );
      expect(error).toBeInstanceOf(RegistryError);
      expect(error.message).toMatch(message);
      expect(error.message).toMatch(/decoder "mine"/);
    });
  }

  it("refuses the same name or key twice", () => {
    const registry = new DecoderRegistry();
    expect(() =>
      registry.addDecoder(definition([MAX_ITERATIONS_OPTION, MAX_ITERATIONS_OPTION])),
    ).toThrow('decoder "mine" option "max-iterations" is declared twice');
    expect(() =>
      registry.addDecoder(
        definition([MAX_ITERATIONS_OPTION, { ...MAX_ITERATIONS_OPTION, name: "cap" }]),
      ),
    ).toThrow('key "maxIterations" is set by another option too');
  });

  it("takes a definition without options, and good specs", () => {
    const registry = new DecoderRegistry()
      .addDecoder(viterbiDefinition)
      .addDecoder(definition([seconds, mode, verbose, positive]));
    expect(registry.decoder("mine").options?.map((o) => o.name)).toEqual([
      "time-limit",
      "mode",
      "verbose",
      "rate",
    ]);
  });
});

describe("a plug-in decoder with options", () => {
  it("declares them, and they resolve and reach its decode", () => {
    const registry = new DecoderRegistry();
    let seen: unknown;
    installPlugin(
      registry,
      ({ registry: r }) => {
        r.addDecoder({
          ...definition([{ ...positive, name: "damping", key: "damping" }], "my-dd"),
          create: () => ({
            name: "my-dd",
            decode: (problem, options) => {
              seen = (options as { damping?: number } | undefined)?.damping;
              return exactDecoding(new Int32Array(problem.scores.n), 0);
            },
          }),
        });
      },
      "./my.js",
    );
    const found = registry.decoder("my-dd");
    const options = resolveDecoderOptions(found, { damping: "0.25" });
    expect(options).toEqual({ damping: 0.25 });
    const scores = { n: 2, L: 2, unary: new Float64Array(4), transition: new Float64Array(4) };
    registry.create("my-dd").decode({ scores }, options);
    expect(seen).toBe(0.25);
    expect(() => resolveDecoderOptions(found, { tau: "1" })).toThrow(
      'decoder "my-dd" has no option "tau"; its options: damping',
    );
  });

  it("with a bad spec is a plug-in error naming it", () => {
    const registry = new DecoderRegistry();
    const error = thrown(() =>
      installPlugin(
        registry,
        ({ registry: r }) => {
          r.addDecoder(definition([{ ...positive, default: 2 }], "my-dd"));
        },
        "./my.js",
      ),
    );
    expect((error as LagrangeError).code).toBe("bad-input");
    expect(error.message).toMatch(/^plug-in \.\/my\.js: decoder "my-dd" option "rate": default 2/);
  });
});
