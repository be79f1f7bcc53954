import { availableParallelism } from "node:os";
import { type Command, InvalidArgumentError, Option } from "commander";
import { warn } from "./progress.js";

export function parseNumber(value: string): number {
  const x = Number(value);
  if (value.trim() === "" || !Number.isFinite(x)) {
    throw new InvalidArgumentError(`expected a number, got "${value}"`);
  }
  return x;
}

/** Regularisation coefficients and thresholds that cannot be negative. */
export function parseNonNegative(value: string): number {
  const x = parseNumber(value);
  if (x < 0) throw new InvalidArgumentError(`expected a number ≥ 0, got "${value}"`);
  return x;
}

/** Step sizes. */
export function parsePositive(value: string): number {
  const x = parseNumber(value);
  if (x <= 0) throw new InvalidArgumentError(`expected a number > 0, got "${value}"`);
  return x;
}

export function parseInteger(value: string): number {
  const x = Number(value);
  if (value.trim() === "" || !Number.isSafeInteger(x) || x < 1) {
    throw new InvalidArgumentError(`expected an integer ≥ 1, got "${value}"`);
  }
  return x;
}

/** For repeatable options: `--plugin a.js --plugin b.js`. */
export function collect(value: string, previous: readonly string[] = []): string[] {
  return [...previous, value];
}

/** `--malformed`: what to do with malformed UMass lines (the same choice in every command). */
export function malformedOption(): Option {
  return new Option("--malformed <policy>", "malformed UMass lines")
    .choices(["error", "repair", "skip"])
    .default("skip");
}

/**
 * Worker threads beyond the cores only add memory (each holds a copy of the model's work): capped
 * at the core count, with a warning.
 */
export function threadCount(requested: number): number {
  const cores = availableParallelism();
  if (requested <= cores) return requested;
  warn(`--threads ${requested}: this machine has ${cores} cores; using ${cores}`);
  return cores;
}

/**
 * The options a command line set (by their long flag: `--algorithm`, `--no-bridge`), defaults not
 * counted: for refusing options that do not apply, whatever their default.
 */
export function givenOptions(command: Command): Set<string> {
  const given = new Set<string>();
  for (const option of command.options) {
    const source = command.getOptionValueSource(option.attributeName());
    if (source !== undefined && source !== "default" && source !== "implied") {
      if (option.long !== undefined) given.add(option.long);
    }
  }
  return given;
}
