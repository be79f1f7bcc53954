import { InvalidArgumentError } from "commander";

/**
 * `--dense-columns 2-51` (or `2,5,7-9`): the columns, numbered from 1 as in the file, whose
 * cells are numbers; 0-based indices out. Column 1 is the word, never dense.
 */
export function parseDenseColumns(value: string): number[] {
  const columns: number[] = [];
  for (const part of value.split(",")) {
    const match = /^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$/.exec(part);
    const from = Number(match?.[1]);
    const to = match?.[2] === undefined ? from : Number(match[2]);
    if (match === null || !(from >= 2 && to >= from && to <= 100_000)) {
      throw new InvalidArgumentError(
        `expected columns numbered from 2 (column 1 is the word) as a list of N or N-M, e.g. 2-51; got "${value}"`,
      );
    }
    for (let c = from; c <= to; c++) columns.push(c - 1);
  }
  if (new Set(columns).size !== columns.length) {
    throw new InvalidArgumentError(`a column is listed twice in "${value}"`);
  }
  return columns;
}
