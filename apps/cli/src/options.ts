import { InvalidArgumentError, Option } from "commander";

export function parseNumber(value: string): number {
  const x = Number(value);
  if (!Number.isFinite(x)) throw new InvalidArgumentError(`expected a number, got "${value}"`);
  return x;
}

export function parseInteger(value: string): number {
  const x = Number(value);
  if (!Number.isInteger(x) || x < 1) {
    throw new InvalidArgumentError(`expected an integer ≥ 1, got "${value}"`);
  }
  return x;
}

/** For repeatable options: `--plugin a.js --plugin b.js`. */
export function collect(value: string, previous: readonly string[] = []): string[] {
  return [...previous, value];
}

/** Ctrl-C cancels long work cleanly (workers torn down, no partial output file). */
export function abortOnSignal(): AbortSignal {
  const controller = new AbortController();
  process.once("SIGINT", () => controller.abort());
  return controller.signal;
}

/** `--malformed`: what to do with malformed UMass lines (the same choice in every command). */
export function malformedOption(): Option {
  return new Option("--malformed <policy>", "malformed UMass lines")
    .choices(["error", "repair", "skip"])
    .default("skip");
}
