/**
 * What a plug-in adds to a registry is checked where it is used: a plug-in's decoder or slave that
 * throws, returns a Promise, a label out of range, a labelling of the wrong length or a NaN score is
 * a `bad-input` error naming the plug-in and what it returned, never an "internal error" deep in
 * the host (nor a wrong answer written out). The registry wraps every definition added while a
 * plug-in installs ({@link installingPlugin}); the app's own definitions are not wrapped.
 */

import { checkDecoderOptionSpecs } from "./decoder-options.js";
import type {
  DecodeOptions,
  DecodeProblem,
  Decoder,
  DecoderContext,
  DecoderDefinition,
  SentenceInstance,
  SlaveDefinition,
} from "./decoder-types.js";
import type { ConstraintStats, Decoding } from "./decoding.js";
import type { SlaveBinding } from "./dual-decomposition/bindings.js";
import { isAbortError, LagrangeError } from "./errors.js";
import type { Slave, SlaveResult, SolutionStatus } from "./solver.js";

/**
 * The plug-in each registry is installing now (`plug-in ./x.js`), if any. Keyed by any object so
 * that this module needs nothing of the registry's (which calls into it).
 */
const installing = new WeakMap<object, string>();

/** Runs `install` with every definition it adds to `registry` marked as `origin`'s. */
export function installingPlugin<T>(registry: object, origin: string, install: () => T): T {
  const outer = installing.get(registry);
  installing.set(registry, origin);
  try {
    return install();
  } finally {
    if (outer === undefined) installing.delete(registry);
    else installing.set(registry, outer);
  }
}

/** The plug-in whose definitions `registry` is being handed now, if any. */
export function installingOrigin(registry: object): string | undefined {
  return installing.get(registry);
}

/** Each error {@link pluginError} made, and the plug-in it names. */
const pluginErrorOrigins = new WeakMap<object, string>();

/** A malformed plug-in (exit 3 in the CLI): `<origin>: <what>`. */
export function pluginError(origin: string, what: string, cause?: unknown): LagrangeError {
  const error = new LagrangeError(
    "bad-input",
    `${origin}: ${what}`,
    cause === undefined ? undefined : { cause },
  );
  pluginErrorOrigins.set(error, origin);
  return error;
}

/** Whether `error` is one {@link pluginError} made for `origin` (already says what went wrong). */
export function isPluginErrorOf(error: unknown, origin: string): boolean {
  return typeof error === "object" && error !== null && pluginErrorOrigins.get(error) === origin;
}

/** The first line of what a plug-in threw: a failure is reported in one line. */
export function messageOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split("\n")[0] ?? "";
}

/** Calls into a plug-in: what it throws becomes a plug-in error saying what was being done. */
function call<T>(origin: string, doing: string, run: () => T): T {
  try {
    return run();
  } catch (error) {
    rethrow(origin, doing, error);
  }
}

/** What a plug-in threw while `doing`, thrown again as a plug-in error (an abort as it is). */
function rethrow(origin: string, doing: string, error: unknown): never {
  if (isAbortError(error)) throw error;
  throw pluginError(origin, `${doing} threw: ${messageOf(error)}`, error);
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  if (typeof value === "string") return `the string ${JSON.stringify(value.slice(0, 40))}`;
  return typeof value === "number" || typeof value === "bigint" ? `${value}` : typeof value;
}

/** Whether a plug-in handed back a Promise (or any thenable) where a value was due. */
export function isThenable(value: unknown): boolean {
  return (
    value !== null &&
    (typeof value === "object" || typeof value === "function") &&
    typeof (value as { then?: unknown }).then === "function"
  );
}

/** A definition's fields a registry relies on before any decoding. */
function checkDefinition(
  kind: "decoder" | "slave",
  definition: DecoderDefinition | SlaveDefinition,
  origin: string,
): void {
  const name = JSON.stringify((definition as { name?: unknown }).name);
  if (definition === null || typeof definition !== "object") {
    throw pluginError(
      origin,
      `add${kind === "decoder" ? "Decoder" : "Slave"} was given ${describe(definition)}, expected a definition object`,
    );
  }
  if (typeof definition.create !== "function") {
    throw pluginError(
      origin,
      `${kind} ${name}: expected a create function, got ${describe(definition.create)}`,
    );
  }
  if (kind === "decoder") {
    const accepts = (definition as DecoderDefinition).accepts as unknown;
    if (accepts === null || typeof accepts !== "object") {
      throw pluginError(
        origin,
        `decoder ${name}: expected accepts { constraints, slaves }, got ${describe(accepts)}`,
      );
    }
    checkDecoderOptionSpecs(definition as DecoderDefinition, (what) => pluginError(origin, what));
  }
}

/** A plug-in's decoder definition whose decoders are checked call by call. */
export function guardDecoderDefinition(
  definition: DecoderDefinition,
  origin: string,
): DecoderDefinition {
  checkDefinition("decoder", definition, origin);
  const name = definition.name;
  const { prepare } = definition;
  return {
    ...definition,
    ...(prepare === undefined
      ? {}
      : {
          prepare: async () => {
            try {
              await prepare.call(definition);
            } catch (error) {
              if (isAbortError(error)) throw error;
              throw pluginError(
                origin,
                `decoder "${name}": prepare failed: ${messageOf(error)}`,
                error,
              );
            }
          },
        }),
    create: (context: DecoderContext) => {
      const decoder = call(origin, `decoder "${name}": create`, () => definition.create(context));
      if (decoder === null || typeof decoder !== "object" || typeof decoder.decode !== "function") {
        throw pluginError(
          origin,
          `decoder "${name}": create returned ${describe(decoder)}, expected an object with a decode method`,
        );
      }
      return guardedDecoder(decoder, name, origin);
    },
  };
}

function guardedDecoder(decoder: Decoder, name: string, origin: string): Decoder {
  const where = `decoder "${name}"`;
  return {
    name: decoder.name,
    decode(problem: DecodeProblem, options?: DecodeOptions): Decoding {
      const out: unknown = call(origin, where, () => decoder.decode(problem, options));
      return checkedDecoding(out, problem.scores.n, problem.scores.L, origin, where);
    },
  };
}

const STATUSES: ReadonlySet<string> = new Set<SolutionStatus>([
  "optimal",
  "converged",
  "iteration-limit",
  "time-limit",
  "infeasible",
]);

/**
 * A labelling as Int32Array: `n` integer labels in [0, L) (−1 everywhere only when `infeasible`:
 * no labelling at all). A plain array of numbers is accepted and copied.
 */
function checkedLabels(
  value: unknown,
  n: number,
  L: number,
  allowNone: boolean,
  fail: (what: string) => LagrangeError,
  field: string,
): Int32Array {
  if (!(value instanceof Int32Array) && !Array.isArray(value) && !ArrayBuffer.isView(value)) {
    throw fail(`returned ${field} ${describe(value)}, expected an Int32Array of ${n} labels`);
  }
  const labels = value as ArrayLike<unknown>;
  if (labels.length !== n) {
    throw fail(`returned ${labels.length} ${field} for ${n} tokens`);
  }
  for (let i = 0; i < n; i++) {
    const y = labels[i];
    const inRange = typeof y === "number" && Number.isInteger(y) && y >= 0 && y < L;
    if (!inRange && !(allowNone && y === -1)) {
      throw fail(
        `returned ${field === "labels" ? "label" : `${field} entry`} ${describe(y)} at token ${i + 1}; the model has ${L} labels (0…${L - 1})`,
      );
    }
  }
  return value instanceof Int32Array ? value : Int32Array.from(labels as ArrayLike<number>);
}

function checkedDecoding(
  out: unknown,
  n: number,
  L: number,
  origin: string,
  where: string,
): Decoding {
  const fail = (what: string) => pluginError(origin, `${where} ${what}`);
  if (isThenable(out)) {
    throw fail("returned a Promise: decode must return its decoding synchronously");
  }
  if (out === null || typeof out !== "object") {
    throw fail(`returned ${describe(out)}, expected a decoding object`);
  }
  const d = out as Record<string, unknown>;
  const status = d.status;
  if (typeof status !== "string" || !STATUSES.has(status)) {
    throw fail(`returned status ${describe(status)}, expected one of ${[...STATUSES].join(", ")}`);
  }
  const infeasible = status === "infeasible";
  const labels = checkedLabels(d.labels, n, L, infeasible, fail, "labels");
  const score = (field: string, value: unknown, optional = false): void => {
    if (optional && value === undefined) return;
    if (typeof value !== "number" || Number.isNaN(value)) {
      throw fail(`returned ${field} ${describe(value)}, expected a number (±∞ allowed, not NaN)`);
    }
  };
  score("primal", d.primal);
  if (d.primal === Number.POSITIVE_INFINITY)
    throw fail("returned primal +∞: a labelling's score is finite or −∞");
  score("dual", d.dual, true);
  score("gap", d.gap);
  const count = (field: string, value: unknown): void => {
    if (typeof value !== "number" || !(value >= 0) || !Number.isFinite(value)) {
      throw fail(`returned ${field} ${describe(value)}, expected a count ≥ 0`);
    }
  };
  count("iterations", d.iterations);
  if (typeof d.certified !== "boolean") {
    throw fail(`returned certified ${describe(d.certified)}, expected true or false`);
  }
  const stats = checkedConstraintStats(d.constraintStats, n, L, fail, count);
  if (labels === d.labels && stats === d.constraintStats) return out as Decoding;
  return {
    ...(out as Decoding),
    labels,
    ...(stats === undefined ? {} : { constraintStats: stats }),
  };
}

/** The optional {@link ConstraintStats} of a plug-in's decoding, its first labels as Int32Array. */
function checkedConstraintStats(
  value: unknown,
  n: number,
  L: number,
  fail: (what: string) => LagrangeError,
  count: (field: string, value: unknown) => void,
): ConstraintStats | undefined {
  if (value === undefined) return undefined;
  if (value === null || typeof value !== "object") {
    throw fail(
      `returned constraintStats ${describe(value)}, expected an object (or none when unconstrained)`,
    );
  }
  const s = value as Record<string, unknown>;
  const firstLabels = checkedLabels(s.firstLabels, n, L, true, fail, "constraintStats.firstLabels");
  for (const field of ["firstViolated", "violated", "hardViolated"]) {
    count(`constraintStats.${field}`, s[field]);
  }
  if (!(s.multipliers instanceof Float64Array)) {
    throw fail(
      `returned constraintStats.multipliers ${describe(s.multipliers)}, expected a Float64Array (empty without constraints)`,
    );
  }
  if (firstLabels === s.firstLabels) return value as ConstraintStats;
  return { ...(value as ConstraintStats), firstLabels };
}

/** A plug-in's slave definition whose slaves are checked call by call. */
export function guardSlaveDefinition(definition: SlaveDefinition, origin: string): SlaveDefinition {
  checkDefinition("slave", definition, origin);
  const name = definition.name;
  return {
    ...definition,
    create: (instance: SentenceInstance) => {
      const made: unknown = call(origin, `slave "${name}": create`, () =>
        definition.create(instance),
      );
      if (isThenable(made)) {
        throw pluginError(
          origin,
          `slave "${name}": create returned a Promise: it must return its binding synchronously`,
        );
      }
      // The shape it returned (one binding or a list) is kept: callers may rely on it.
      if (!Array.isArray(made)) return guardedBinding(made, name, instance, origin);
      return made.map((binding: unknown) => guardedBinding(binding, name, instance, origin));
    },
  };
}

function guardedBinding(
  binding: unknown,
  name: string,
  instance: SentenceInstance,
  origin: string,
): SlaveBinding {
  const slave = (binding as { slave?: unknown } | null)?.slave as Slave | undefined;
  if (
    slave === undefined ||
    slave === null ||
    typeof slave !== "object" ||
    typeof slave.maximize !== "function" ||
    typeof slave.score !== "function"
  ) {
    throw pluginError(
      origin,
      `slave "${name}": create returned ${describe(binding)}, expected { slave } with maximize and score (core.defineSlave builds one)`,
    );
  }
  const where = `slave "${name}"`;
  const fail = (what: string) => pluginError(origin, `${where} ${what}`);
  const { n, L } = slave;
  if (!Number.isInteger(n) || n < 1 || n > instance.n) {
    throw fail(
      `has n = ${describe(n)}: expected an integer from 1 to the sentence's ${instance.n} tokens`,
    );
  }
  if (L !== instance.L) throw fail(`has L = ${describe(L)}; the model has ${instance.L} labels`);
  // Built once: maximize and score run every iteration, so they make no string nor closure.
  const maximizing = `${where}: maximize`;
  const scoring = `${where}: score`;
  const guarded: Slave = {
    name: slave.name,
    n,
    L,
    maximize(adjustment: Float64Array): SlaveResult {
      let result: unknown;
      try {
        result = slave.maximize(adjustment);
      } catch (error) {
        rethrow(origin, maximizing, error);
      }
      if (isThenable(result))
        throw fail("returned a Promise from maximize: it must return synchronously");
      if (result === null || typeof result !== "object") {
        throw fail(`maximize returned ${describe(result)}, expected { labels, value }`);
      }
      const r = result as { labels?: unknown; value?: unknown; indicators?: unknown };
      const value = r.value;
      if (typeof value !== "number" || Number.isNaN(value) || value === Number.POSITIVE_INFINITY) {
        throw fail(`maximize returned value ${describe(value)}, expected a finite number or −∞`);
      }
      const labels = checkedLabels(r.labels, n, L, false, fail, "labels");
      const indicators = r.indicators;
      if (
        indicators !== undefined &&
        !(indicators instanceof Uint8Array && indicators.length === n * L)
      ) {
        throw fail(
          `maximize returned indicators ${describe(indicators)}, expected a Uint8Array of n·L = ${n * L}`,
        );
      }
      return labels === r.labels ? (result as SlaveResult) : { ...(result as SlaveResult), labels };
    },
    score(labels: ArrayLike<number>): number {
      let value: unknown;
      try {
        value = slave.score(labels);
      } catch (error) {
        rethrow(origin, scoring, error);
      }
      if (typeof value !== "number" || Number.isNaN(value) || value === Number.POSITIVE_INFINITY) {
        throw fail(`score returned ${describe(value)}, expected a finite number or −∞`);
      }
      return value;
    },
  };
  const positions = (binding as SlaveBinding).positions;
  return positions === undefined ? { slave: guarded } : { slave: guarded, positions };
}
