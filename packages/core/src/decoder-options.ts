/**
 * The options a decoder reads, declared by its definition: apps build `--<name>` flags and
 * `--decoder-option <name>=<value>` from them, check values against them and show them in help,
 * so no app keeps a list of which decoder reads what, and a plug-in decoder may have options.
 */
import { DEFAULT_TOLERANCE } from "./dual-decomposition/bounds.js";
import { LagrangeError, ProblemValidationError } from "./errors.js";
import { DEFAULT_MAX_ITERATIONS, MAX_ITERATIONS, MAX_TIME_LIMIT_MS } from "./solver.js";

export type DecoderOptionValue = number | boolean | string;

/** What these functions read of a decoder's definition (decoder.ts's `DecoderDefinition`). */
interface DeclaringDecoder {
  readonly name: string;
  readonly options?: readonly DecoderOptionSpec[];
}

/**
 * How the master moves its multipliers: `subgradient` (projected subgradient on the dual; the
 * default), `ad3` (Martins et al. 2015's augmented-Lagrangian step: each slave solves a small
 * quadratic problem instead of a MAP problem; see dual-decomposition/ad3/), or `auto`: the
 * subgradient step, and where its stall rule stops it uncertified, the AD3 step from its
 * multipliers (the subgradient's cheap iterations certify most problems; AD3 the rest).
 */
export type DualDecompositionStep = "subgradient" | "ad3" | "auto";

export const DUAL_DECOMPOSITION_STEPS = [
  "subgradient",
  "ad3",
  "auto",
] as const satisfies readonly DualDecompositionStep[];

/** What a value must be: a declared option's bounds, which library entry points check too. */
export interface OptionBounds {
  /** The field of the options object it bounds. */
  readonly key: string;
  readonly type: "integer" | "number" | "boolean" | "choice";
  /** Inclusive bounds (numbers); `above`: exclusive lower bound. */
  readonly min?: number;
  readonly max?: number;
  readonly above?: number;
  readonly choices?: readonly string[];
}

export interface DecoderOptionSpec extends OptionBounds {
  /** kebab-case: the CLI flag `--<name>` and the key of `--decoder-option <name>=<value>`; e.g. "max-iterations", "tau", "time-limit", "iterations". */
  readonly name: string;
  /** One line for --help. */
  readonly help: string;
  /** In the user's unit (before `scale`). */
  readonly default: DecoderOptionValue;
  /** The user's value × scale is the decode option (seconds → ms: 1000). Default 1. */
  readonly scale?: number;
  /** Shown in help, e.g. "seconds". */
  readonly unit?: string;
  /**
   * The option only acts when another of the decoder's options has one of these values (`eta`
   * and `exact` only with `step` ad3): given otherwise it would be silently ignored, so
   * {@link resolveDecoderOptions} refuses it, naming both.
   */
  readonly appliesWhen?: {
    readonly option: string;
    readonly values: readonly DecoderOptionValue[];
  };
}

/**
 * `max-iterations` of the dual-decomposition decoders: core's cap and its default (200, as
 * {@link SolveOptions.maxIterations} says).
 */
export const MAX_ITERATIONS_OPTION: DecoderOptionSpec = {
  name: "max-iterations",
  key: "maxIterations",
  type: "integer",
  help: "iteration cap of the dual-decomposition master per sentence (rounds of slave calls); with --exact, per branch-and-bound node, as ad3_multi (at most 1,000 nodes; --time-limit bounds the whole search)",
  default: DEFAULT_MAX_ITERATIONS,
  min: 1,
  max: MAX_ITERATIONS,
};

/** `tolerance` of the dual-decomposition master: the relative duality gap that certifies. */
export const TOLERANCE_OPTION: DecoderOptionSpec = {
  name: "tolerance",
  key: "tolerance",
  type: "number",
  help: "relative duality gap under which a labelling counts as certified optimal",
  default: DEFAULT_TOLERANCE,
  min: 0,
};

/**
 * `step` of the dual-decomposition decoders: how the master moves its multipliers
 * (`DualDecompositionOptions.step`). Default `auto`: on CoNLL-2003 dev documents it certified
 * 100 % (subgradient alone 97.4 %, its stall rule giving up on runs AD3 certifies) at about a
 * third of AD3's decoding time; where the subgradient certifies it is the subgradient step.
 */
export const STEP_OPTION: DecoderOptionSpec = {
  name: "step",
  key: "step",
  type: "choice",
  help: "the master's step: subgradient (projected subgradient), ad3 (augmented Lagrangian, Martins et al. 2015), or auto (subgradient, then ad3 where it stalls uncertified)",
  default: "auto",
  choices: DUAL_DECOMPOSITION_STEPS,
};

/**
 * `eta` of the dual-decomposition decoders: AD3's initial penalty (the subgradient step ignores
 * it). Bounded to [1e-6, 1e6]: η adapts from there within a few iterations, and values near the
 * ends of the doubles (1e-320, 1e308) overflow the slaves' quadratic problems.
 */
export const ETA_OPTION: DecoderOptionSpec = {
  name: "eta",
  key: "eta",
  type: "number",
  help: "with --step ad3 or auto: AD3's initial quadratic penalty (adapted)",
  default: 1,
  min: 1e-6,
  max: 1e6,
  appliesWhen: { option: "step", values: ["ad3", "auto"] },
};

/** `exact` of the dual-decomposition decoders: AD3 with branch and bound (AD3's step only). */
export const EXACT_OPTION: DecoderOptionSpec = {
  name: "exact",
  key: "exact",
  type: "boolean",
  help: "with --step ad3: branch and bound until the gap closes (exact MAP)",
  default: false,
  appliesWhen: { option: "step", values: ["ad3"] },
};

/**
 * `time-limit` of every decoder that can run long (the ILPs, the dual-decomposition master and
 * AD3's branch and bound): seconds for all of a sentence's solves together — one deadline per
 * sentence shared by every solve a decoder (or n-best over it) makes. Default 10 s; at most
 * 2^31 − 1 ms in whole seconds (about 24.8 days), the longest delay a JavaScript timer takes.
 */
export const TIME_LIMIT_OPTION: DecoderOptionSpec = {
  name: "time-limit",
  key: "timeLimitMs",
  type: "number",
  help: "per-sentence time limit for all of a sentence's solves (n-best's included); a sentence that hits it keeps the best labelling found",
  default: 10,
  min: 0.001,
  max: Math.floor(MAX_TIME_LIMIT_MS / 1000),
  scale: 1000,
  unit: "seconds",
};

/**
 * Every option of core's dual-decomposition master that a DD decoder declares: iteration cap,
 * tolerance, step, η, exact mode and time limit, in the order help lists them.
 */
export const DUAL_DECOMPOSITION_OPTIONS: readonly DecoderOptionSpec[] = [
  MAX_ITERATIONS_OPTION,
  TOLERANCE_OPTION,
  STEP_OPTION,
  ETA_OPTION,
  EXACT_OPTION,
  TIME_LIMIT_OPTION,
];

const OPTION_NAME = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;
const TYPES: ReadonlySet<string> = new Set(["integer", "number", "boolean", "choice"]);
const TRUE = new Set(["true", "yes", "on", "1"]);
const FALSE = new Set(["false", "no", "off", "0"]);

/** What a value of `spec` must be, in words: "an integer from 1 to 2147483647". */
function expected(spec: OptionBounds): string {
  if (spec.type === "boolean") return "true or false";
  if (spec.type === "choice") return `one of ${(spec.choices ?? []).join(", ")}`;
  const what = spec.type === "integer" ? "an integer" : "a number";
  const { min, max, above } = spec;
  const low = above !== undefined ? `> ${above}` : min !== undefined ? `≥ ${min}` : undefined;
  if (above === undefined && min !== undefined && max !== undefined) {
    return spec.type === "integer"
      ? `${what} from ${min} to ${max}`
      : `${what} in [${min}, ${max}]`;
  }
  const bounds = [low, max === undefined ? undefined : `≤ ${max}`].filter((b) => b !== undefined);
  return bounds.length === 0 ? what : `${what} ${bounds.join(" and ")}`;
}

/** Why `value` does not fit `spec`, or undefined when it does. */
function misfit(spec: OptionBounds, value: DecoderOptionValue): boolean {
  switch (spec.type) {
    case "boolean":
      return typeof value !== "boolean";
    case "choice":
      return typeof value !== "string" || !(spec.choices ?? []).includes(value);
    default: {
      if (typeof value !== "number" || !Number.isFinite(value)) return true;
      if (spec.type === "integer" && !Number.isInteger(value)) return true;
      if (spec.min !== undefined && value < spec.min) return true;
      if (spec.max !== undefined && value > spec.max) return true;
      return spec.above !== undefined && !(value > spec.above);
    }
  }
}

/** The typed value of a raw string, unchecked against the bounds (undefined: unreadable). */
function read(spec: DecoderOptionSpec, raw: string): DecoderOptionValue | undefined {
  const text = raw.trim();
  switch (spec.type) {
    case "boolean": {
      const lower = text.toLowerCase();
      return TRUE.has(lower) ? true : FALSE.has(lower) ? false : undefined;
    }
    case "choice":
      return text;
    default:
      return text === "" ? undefined : Number(text);
  }
}

function shown(raw: unknown): string {
  return typeof raw === "string" ? JSON.stringify(raw) : String(raw);
}

/**
 * A library caller's options against the bounds its entry point declares (apps check the same
 * specs through {@link resolveDecoderOptions}): a value outside them is a ProblemValidationError
 * `options.<key>: expected …, got …`. The specs' values are in the library's unit: pass no
 * option with a `scale`.
 */
export function checkOptionBounds(
  bounds: readonly OptionBounds[],
  options: object | undefined,
): void {
  for (const spec of bounds) {
    const value: unknown = (options as Record<string, unknown> | undefined)?.[spec.key];
    if (value === undefined) continue;
    const typed =
      typeof value === "number" || typeof value === "boolean" || typeof value === "string";
    if (!typed || misfit(spec, value)) {
      throw new ProblemValidationError(
        `options.${spec.key}`,
        `expected ${expected(spec)}, got ${shown(value)}`,
      );
    }
  }
}

/** Parses one raw string for a spec; a usage LagrangeError naming the decoder and the option, with what was expected, when bad. */
export function parseDecoderOption(
  decoder: string,
  spec: DecoderOptionSpec,
  raw: string | DecoderOptionValue,
): DecoderOptionValue {
  const value = typeof raw === "string" ? read(spec, raw) : raw;
  if (value === undefined || misfit(spec, value)) {
    throw new LagrangeError(
      "usage",
      `decoder "${decoder}" option "${spec.name}": expected ${expected(spec)}, got ${shown(raw)}`,
    );
  }
  return value;
}

/**
 * The decode options object for `definition` from the options a user gave, keyed by option NAME (kebab): every declared option at its value or default, scaled, under its `key`.
 * An option the decoder does not declare is a usage LagrangeError naming the decoder: `decoder "viterbi" has no option "tau"; it takes no options` / `…; its options: max-iterations, tolerance`.
 */
export function resolveDecoderOptions(
  definition: DeclaringDecoder,
  given: Readonly<Record<string, string | DecoderOptionValue>>,
): Record<string, DecoderOptionValue> {
  const specs = definition.options ?? [];
  for (const name of Object.keys(given)) {
    if (specs.some((spec) => spec.name === name)) continue;
    const known =
      specs.length === 0
        ? "it takes no options"
        : `its options: ${specs.map((spec) => spec.name).join(", ")}`;
    throw new LagrangeError(
      "usage",
      `decoder "${definition.name}" has no option ${JSON.stringify(name)}; ${known}`,
    );
  }
  const out: Record<string, DecoderOptionValue> = {};
  const values = new Map<string, DecoderOptionValue>();
  for (const spec of specs) {
    const raw = Object.hasOwn(given, spec.name) ? given[spec.name] : undefined;
    const value = raw === undefined ? spec.default : parseDecoderOption(definition.name, spec, raw);
    values.set(spec.name, value);
    out[spec.key] = typeof value === "number" ? value * (spec.scale ?? 1) : value;
  }
  for (const spec of specs) {
    const when = spec.appliesWhen;
    if (when === undefined || !Object.hasOwn(given, spec.name)) continue;
    const other = values.get(when.option);
    if (other !== undefined && when.values.includes(other)) continue;
    throw new LagrangeError(
      "usage",
      `decoder "${definition.name}": --${spec.name} has no effect unless --${when.option} is ${when.values.join(" or ")} (it is ${shown(other ?? "unset")}); add --${when.option} ${when.values[0]} or drop --${spec.name}`,
    );
  }
  return out;
}

/** Help lines for a decoder's options (name, type/range, default, help). */
export function describeDecoderOptions(definition: DeclaringDecoder): string[] {
  return (definition.options ?? []).map((spec) => {
    const unit = spec.unit === undefined ? "" : ` ${spec.unit}`;
    return `--${spec.name}: ${spec.help} (${expected(spec)}${unit}; default ${String(spec.default)}${unit})`;
  });
}

/**
 * Checks a definition's option specs (the registry calls it on every decoder it adds): what is
 * wrong is the message of the error `fail` makes, naming the decoder and the option.
 */
export function checkDecoderOptionSpecs(
  definition: DeclaringDecoder,
  fail: (message: string) => Error,
): void {
  const options = (definition as { options?: unknown }).options;
  if (options === undefined) return;
  const where = `decoder "${definition.name}"`;
  if (!Array.isArray(options)) {
    throw fail(`${where}: options must be an array of option specs`);
  }
  const names = new Set<string>();
  const keys = new Set<string>();
  for (const item of options as unknown[]) {
    const spec = item as Partial<DecoderOptionSpec> | null;
    if (spec === null || typeof spec !== "object") {
      throw fail(`${where}: an option spec is ${String(spec)}, expected an object`);
    }
    const { name, key, type } = spec;
    if (typeof name !== "string" || !OPTION_NAME.test(name)) {
      throw fail(
        `${where}: option name ${JSON.stringify(name)}: expected kebab-case (lower-case letters, digits, single hyphens)`,
      );
    }
    const at = `${where} option "${name}"`;
    if (names.has(name)) throw fail(`${at} is declared twice`);
    names.add(name);
    if (typeof key !== "string" || !/^[A-Za-z_$][\w$]*$/.test(key)) {
      throw fail(`${at}: key ${JSON.stringify(key)}: expected an identifier`);
    }
    if (keys.has(key)) throw fail(`${at}: key "${key}" is set by another option too`);
    keys.add(key);
    if (typeof type !== "string" || !TYPES.has(type)) {
      throw fail(
        `${at}: type ${JSON.stringify(type)}: expected integer, number, boolean or choice`,
      );
    }
    if (typeof spec.help !== "string") throw fail(`${at}: expected a help line`);
    for (const bound of ["min", "max", "above"] as const) {
      const b = spec[bound];
      if (b !== undefined && !(typeof b === "number" && Number.isFinite(b))) {
        throw fail(`${at}: ${bound} ${String(b)}: expected a finite number`);
      }
    }
    const scale = spec.scale;
    if (
      scale !== undefined &&
      !(typeof scale === "number" && Number.isFinite(scale) && scale > 0)
    ) {
      throw fail(`${at}: scale ${String(scale)}: expected a finite number > 0`);
    }
    if (
      type === "choice" &&
      !(
        Array.isArray(spec.choices) &&
        spec.choices.length > 0 &&
        spec.choices.every((c) => typeof c === "string")
      )
    ) {
      throw fail(`${at}: a choice needs a non-empty list of choices`);
    }
    const when = spec.appliesWhen;
    if (when !== undefined) {
      const other = (options as Partial<DecoderOptionSpec>[]).find((o) => o?.name === when.option);
      if (
        other === undefined ||
        !Array.isArray(when.values) ||
        when.values.length === 0 ||
        when.values.some((v) => misfit(other as DecoderOptionSpec, v))
      ) {
        throw fail(
          `${at}: appliesWhen: expected another option of the decoder and values it takes, got ${JSON.stringify(when)}`,
        );
      }
    }
    const value = spec.default;
    if (value === undefined || misfit(spec as DecoderOptionSpec, value)) {
      throw fail(
        `${at}: default ${value === undefined ? "missing" : shown(value)}: expected ${expected(spec as DecoderOptionSpec)}`,
      );
    }
  }
}
