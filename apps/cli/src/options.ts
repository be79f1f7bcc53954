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

/**
 * Runs a command with an AbortSignal that Ctrl-C fires, so long work stops cleanly (workers torn
 * down, no partial output file); the handler is removed when the command ends.
 */
export async function withCtrlC<T>(run: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const abort = () => controller.abort();
  process.once("SIGINT", abort);
  try {
    return await run(controller.signal);
  } finally {
    process.off("SIGINT", abort);
  }
}

/** `--malformed`: what to do with malformed UMass lines (the same choice in every command). */
export function malformedOption(): Option {
  return new Option("--malformed <policy>", "malformed UMass lines")
    .choices(["error", "repair", "skip"])
    .default("skip");
}
