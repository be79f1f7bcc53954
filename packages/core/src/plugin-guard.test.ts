import { describe, expect, it } from "vitest";
import { DecoderRegistry, viterbiDefinition } from "./decoder.js";
import type { Decoder } from "./decoder-types.js";
import { exactDecoding } from "./decoding.js";
import { AbortError, LagrangeError } from "./errors.js";
import { installPlugin, type LagrangePlugin } from "./plugin.js";

/** Three tokens, two labels: Viterbi says 1 1 1. */
const scores = {
  n: 3,
  L: 2,
  unary: Float64Array.of(0, 1, 0, 2, 0, 3),
  transition: new Float64Array(4),
};

/** A registry with viterbi and a plug-in decoder "mine" whose decode is `decode`. */
function withPluginDecoder(decode: Decoder["decode"]): DecoderRegistry {
  const registry = new DecoderRegistry().addDecoder(viterbiDefinition);
  installPlugin(
    registry,
    ({ registry: r }) => {
      r.addDecoder({
        name: "mine",
        description: "a plug-in's decoder",
        accepts: { constraints: false, slaves: false },
        create: () => ({ name: "mine", decode }),
      });
    },
    "./x.js",
  );
  return registry;
}

/** The error `run` throws (it must throw). */
function thrown(run: () => unknown): Error {
  try {
    run();
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected it to throw");
}

function expectPluginError(run: () => unknown, message: RegExp): void {
  const error = thrown(run);
  expect(error).toBeInstanceOf(LagrangeError);
  expect((error as LagrangeError).code).toBe("bad-input");
  expect(error.message).toMatch(message);
}

const good = () => exactDecoding(Int32Array.of(1, 1, 1), 6);

describe("a plug-in's decoder is checked at every call, and what is wrong names the plug-in", () => {
  const cases: [string, () => unknown, RegExp][] = [
    [
      "a label out of range",
      () => ({ ...good(), labels: Int32Array.of(0, 0, 17) }),
      /^plug-in \.\/x\.js: decoder "mine" returned label 17 at token 3; the model has 2 labels \(0…1\)$/,
    ],
    [
      "a negative label",
      () => ({ ...good(), labels: Int32Array.of(-1, 0, 0) }),
      /label -1 at token 1/,
    ],
    ["a fractional label", () => ({ ...good(), labels: [0, 0.5, 1] }), /label 0\.5 at token 2/],
    [
      "too few labels",
      () => ({ ...good(), labels: Int32Array.of(1, 1) }),
      /returned 2 labels for 3 tokens/,
    ],
    [
      "no labels",
      () => ({ ...good(), labels: undefined }),
      /returned labels undefined, expected an Int32Array/,
    ],
    ["a NaN score", () => ({ ...good(), primal: Number.NaN }), /returned primal NaN/],
    ["a NaN bound", () => ({ ...good(), dual: Number.NaN }), /returned dual NaN/],
    [
      "an unknown status",
      () => ({ ...good(), status: "done" }),
      /returned status the string "done"/,
    ],
    [
      "no certificate",
      () => ({ labels: Int32Array.of(1, 1, 1), primal: 6, status: "optimal" }),
      /returned gap undefined, expected a number/,
    ],
    [
      "constraint statistics without first labels",
      () => ({ ...good(), constraintStats: { violated: 0, hardViolated: 0, firstViolated: 0 } }),
      /returned constraintStats\.firstLabels undefined, expected an Int32Array of 3 labels/,
    ],
    [
      "constraint statistics without multipliers",
      () => ({
        ...good(),
        constraintStats: {
          firstLabels: Int32Array.of(1, 1, 1),
          violated: 0,
          hardViolated: 0,
          firstViolated: 0,
        },
      }),
      /returned constraintStats\.multipliers undefined, expected a Float64Array/,
    ],
    ["nothing", () => undefined, /returned undefined, expected a decoding object/],
    [
      "a Promise",
      () => Promise.resolve(good()),
      /returned a Promise: decode must return its decoding synchronously/,
    ],
    [
      "an exception",
      () => {
        throw new TypeError("cannot read properties of undefined");
      },
      /^plug-in \.\/x\.js: decoder "mine" threw: cannot read properties of undefined$/,
    ],
  ];
  for (const [what, decode, message] of cases) {
    it(`${what}: a bad-input error`, () => {
      const decoder = withPluginDecoder(decode as Decoder["decode"]).create("mine");
      expectPluginError(() => decoder.decode({ scores }), message);
    });
  }

  it("keeps the error it caught as the cause", () => {
    const cause = new RangeError("deep inside");
    const decoder = withPluginDecoder(() => {
      throw cause;
    }).create("mine");
    expect(thrown(() => decoder.decode({ scores })).cause).toBe(cause);
  });

  it("lets cancellation through as it is", () => {
    const abort = new AbortError();
    const decoder = withPluginDecoder(() => {
      throw abort;
    }).create("mine");
    expect(thrown(() => decoder.decode({ scores }))).toBe(abort);
  });

  it("passes a well-formed decoding through, a plain array of labels as an Int32Array", () => {
    const plain = withPluginDecoder(() => ({ ...good(), labels: [1, 0, 1] as never }));
    const d = plain.create("mine").decode({ scores });
    expect(d.labels).toBeInstanceOf(Int32Array);
    expect([...d.labels]).toEqual([1, 0, 1]);
    const exact = withPluginDecoder(good).create("mine").decode({ scores });
    expect([...exact.labels]).toEqual([1, 1, 1]);
  });

  it("leaves the app's own decoders unwrapped", () => {
    const registry = withPluginDecoder(good);
    expect(registry.decoder("viterbi")).toBe(viterbiDefinition);
  });

  it("a create that throws or returns no decoder names the plug-in", () => {
    const registry = new DecoderRegistry();
    installPlugin(
      registry,
      ({ registry: r }) => {
        r.addDecoder({
          name: "broken",
          description: "",
          accepts: { constraints: false, slaves: false },
          create: () => {
            throw new Error("no model");
          },
        });
        r.addDecoder({
          name: "empty",
          description: "",
          accepts: { constraints: false, slaves: false },
          create: () => ({}) as Decoder,
        });
      },
      "./x.js",
    );
    expectPluginError(() => registry.create("broken"), /decoder "broken": create threw: no model/);
    expectPluginError(
      () => registry.create("empty"),
      /create returned an object, expected an object with a decode method/,
    );
  });
});

describe("a plug-in's slave is checked at every call", () => {
  /** A registry whose plug-in slave "mine" maximizes with `maximize` (and scores 0). */
  function withPluginSlave(maximize: (adjustment: Float64Array) => unknown): DecoderRegistry {
    const registry = new DecoderRegistry();
    installPlugin(
      registry,
      ({ registry: r, core }) => {
        r.addSlave({
          name: "mine",
          description: "",
          create: ({ n, L }) => ({
            slave: core.defineSlave({
              name: "mine",
              n,
              L,
              maximize: maximize as never,
              score: () => 0,
            }),
          }),
        });
      },
      "./s.js",
    );
    return registry;
  }

  const instance = { n: 3, L: 2, labels: ["A", "B"], tokens: ["a", "b", "c"] };
  const adjustment = new Float64Array(6);
  const cases: [string, () => unknown, RegExp][] = [
    [
      "a label out of range",
      () => ({ labels: Int32Array.of(0, 5, 0), value: 0 }),
      /^plug-in \.\/s\.js: slave "mine" returned label 5 at token 2; the model has 2 labels/,
    ],
    [
      "a wrong length",
      () => ({ labels: Int32Array.of(0), value: 0 }),
      /returned 1 labels for 3 tokens/,
    ],
    [
      "a NaN value",
      () => ({ labels: Int32Array.of(0, 0, 0), value: Number.NaN }),
      /maximize returned value NaN/,
    ],
    [
      "+∞",
      () => ({ labels: Int32Array.of(0, 0, 0), value: Infinity }),
      /maximize returned value Infinity/,
    ],
    ["a Promise", () => Promise.resolve({}), /returned a Promise from maximize/],
    [
      "an exception",
      () => {
        throw new Error("oops");
      },
      /slave "mine": maximize threw: oops/,
    ],
  ];
  for (const [what, maximize, message] of cases) {
    it(`${what}: a bad-input error`, () => {
      const [binding] = [withPluginSlave(maximize).slave("mine").create(instance)].flat();
      expectPluginError(() => binding!.slave.maximize(adjustment), message);
    });
  }

  it("a create that throws, returns a Promise or no slave names the plug-in", () => {
    const registry = new DecoderRegistry();
    installPlugin(
      registry,
      ({ registry: r }) => {
        r.addSlave({
          name: "throws",
          description: "",
          create: () => {
            throw new Error("no gazetteer");
          },
        });
        r.addSlave({ name: "later", description: "", create: () => Promise.resolve() as never });
        r.addSlave({ name: "nothing", description: "", create: () => ({}) as never });
      },
      "./s.js",
    );
    expectPluginError(
      () => registry.slave("throws").create(instance),
      /slave "throws": create threw: no gazetteer/,
    );
    expectPluginError(() => registry.slave("later").create(instance), /create returned a Promise/);
    expectPluginError(
      () => registry.slave("nothing").create(instance),
      /expected \{ slave \} with maximize and score/,
    );
  });

  it("a well-formed slave answers as before, in the shape its create returned", () => {
    const registry = withPluginSlave(() => ({ labels: Int32Array.of(1, 1, 1), value: 0 }));
    const made = registry.slave("mine").create(instance);
    expect(Array.isArray(made)).toBe(false);
    const [binding] = [made].flat();
    expect([...binding!.slave.maximize(adjustment).labels]).toEqual([1, 1, 1]);
    expect(binding!.slave.score(Int32Array.of(1, 1, 1))).toBe(0);
  });
});

describe("installing a plug-in", () => {
  it("what it throws, a name it takes twice, or a Promise it returns names it (bad-input)", () => {
    const registry = new DecoderRegistry().addDecoder(viterbiDefinition);
    const throws: LagrangePlugin = () => {
      // Only the first line is quoted: a failure is reported in one line.
      throw new Error("missing dependency\n    at somewhere (./a.js:1:1)");
    };
    expectPluginError(
      () => installPlugin(registry, throws, "./a.js"),
      /^plug-in \.\/a\.js: installing it threw: missing dependency$/,
    );
    const twice: LagrangePlugin = ({ registry: r }) => {
      r.addDecoder(viterbiDefinition);
    };
    expectPluginError(
      () => installPlugin(registry, twice, "./b.js"),
      /^plug-in \.\/b\.js: installing it threw: a decoder named "viterbi" is already registered$/,
    );
    const later = (async () => {}) as unknown as LagrangePlugin;
    expectPluginError(() => installPlugin(registry, later, "./c.js"), /returned a Promise/);
    const noCreate: LagrangePlugin = ({ registry: r }) => {
      r.addDecoder({
        name: "half",
        description: "",
        accepts: { constraints: false, slaves: false },
      } as never);
    };
    expectPluginError(
      () => installPlugin(registry, noCreate, "./d.js"),
      /^plug-in \.\/d\.js: decoder "half": expected a create function/,
    );
  });

  it("without a source, the plug-in is named by its function", () => {
    const registry = new DecoderRegistry();
    function myPlugin(): void {
      throw new Error("no");
    }
    expectPluginError(
      () => installPlugin(registry, myPlugin),
      /^plug-in myPlugin: installing it threw: no$/,
    );
  });
});
