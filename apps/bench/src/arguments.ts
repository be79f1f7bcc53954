import { TWO_PHASE_DATASETS, type TwoPhaseDatasetName } from "@lagrange/experiments";
import { InvalidArgumentError } from "commander";
import { writeReport } from "./report.js";

export const integer = (value: string) => {
  const x = Number(value);
  if (!Number.isInteger(x) || x < 1)
    throw new InvalidArgumentError(`expected an integer ≥ 1, got "${value}"`);
  return x;
};

/** A comma-separated list of distinct thread counts, e.g. `1,2`. */
export const threadList = (value: string) => {
  const counts = value.split(",").map((part) => part.trim());
  const parsed = counts.map((part) => {
    const x = Number(part);
    if (part === "" || !Number.isInteger(x) || x < 1)
      throw new InvalidArgumentError(
        `expected comma-separated integers ≥ 1 (e.g. 1,2), got "${value}"`,
      );
    return x;
  });
  if (new Set(parsed).size !== parsed.length)
    throw new InvalidArgumentError(`a thread count appears twice in "${value}"`);
  return parsed;
};

export const status = (message: string) => process.stderr.write(`[bench] ${message}\n`);

/** Markdown on stdout; with --out, the JSON there and the Markdown beside it (.md). */
export async function emit(
  result: unknown,
  markdown: string,
  out: string | undefined,
): Promise<void> {
  process.stdout.write(markdown);
  if (out === undefined) return;
  await writeReport(out, `${JSON.stringify(result, null, 2)}\n`);
  await writeReport(`${out.replace(/\.json$/, "")}.md`, markdown);
  status(`wrote ${out}`);
}

export const number = (value: string) => {
  const x = Number(value);
  if (!Number.isFinite(x)) throw new InvalidArgumentError(`expected a number, got "${value}"`);
  return x;
};

export const datasetList = (value: string): TwoPhaseDatasetName[] => {
  const names = value
    .split(",")
    .map((x) => x.trim())
    .filter((x) => x !== "");
  for (const name of names) {
    if (!(TWO_PHASE_DATASETS as readonly string[]).includes(name)) {
      throw new InvalidArgumentError(
        `unknown dataset "${name}"; expected a comma-separated list of ${TWO_PHASE_DATASETS.join(", ")}`,
      );
    }
  }
  if (names.length === 0) throw new InvalidArgumentError("name at least one dataset");
  return [...new Set(names)] as TwoPhaseDatasetName[];
};

export const instanceList = (value: string): string[] => {
  const names = value
    .split(",")
    .map((x) => x.trim())
    .filter((x) => x !== "");
  if (names.length === 0) throw new InvalidArgumentError("name at least one instance");
  return [...new Set(names)];
};

export const numbers = (value: string, previous: number[] | undefined): number[] => {
  const x = Number(value);
  if (!(x > 0)) throw new InvalidArgumentError(`${value}: expected a positive number`);
  return [...(previous ?? []), x];
};

/** A comma-separated list of names, each one of `known`. */
export const nameList =
  (what: string, known: readonly string[]) =>
  (value: string): string[] => {
    const names = value
      .split(",")
      .map((x) => x.trim())
      .filter((x) => x !== "");
    if (names.length === 0) throw new InvalidArgumentError(`name at least one ${what}`);
    for (const name of names) {
      if (!known.includes(name)) {
        throw new InvalidArgumentError(
          `unknown ${what} "${name}"; expected a comma-separated list of ${known.join(", ")}`,
        );
      }
    }
    return [...new Set(names)];
  };
