import {
  type DatasetListing,
  type ListedSplit,
  listDatasets,
  type SplitWhere,
} from "@lagrange/datasets/node";
import { usageError } from "../exit-codes.js";

export interface DatasetsOptions {
  readonly json?: boolean;
}

/** `lagrange datasets [name]`: the registry as text or JSON (one dataset with `name`). */
export function datasetsCommand(name: string | undefined, options: DatasetsOptions): string {
  const listing = listDatasets();
  const datasets =
    name === undefined ? listing.datasets : listing.datasets.filter((d) => d.name === name);
  if (datasets.length === 0) {
    const known = listing.datasets.map((d) => d.name).join(", ");
    throw usageError(`unknown dataset "${name}"; known: ${known}`);
  }
  const chosen: DatasetListing = { ...listing, datasets };
  return options.json === true ? `${JSON.stringify(chosen, null, 2)}\n` : renderListing(chosen);
}

const WHERE: Readonly<Record<SplitWhere, string>> = {
  mirror: "here",
  cache: "here (cache)",
  download: "downloaded on first use",
  sealed: "sealed test split, not here",
  offline: "not here (offline)",
  damaged: "here, wrong size: check the file",
};

function renderListing(listing: DatasetListing): string {
  const width = Math.max(...listing.datasets.flatMap((d) => d.splits.map((s) => s.spec.length)));
  const lines: string[] = [];
  for (const dataset of listing.datasets) {
    const label =
      dataset.labelColumn === undefined
        ? dataset.scheme
        : `${dataset.labelColumn}, ${dataset.scheme}`;
    lines.push(`${dataset.name}: ${dataset.title} [${label}]`);
    for (const split of dataset.splits) lines.push(`  ${splitLine(split, width)}`);
  }
  lines.push("");
  lines.push(`here: ${listing.mirror ?? "no mirror"} (mirror), ${listing.cache} (cache)`);
  lines.push("Train on one: lagrange train --data conll2000:train --preset chunking --out m.lgm");
  return `${lines.join("\n")}\n`;
}

function splitLine(split: ListedSplit, width: number): string {
  const count = (n: number | undefined, unit: string) =>
    n === undefined
      ? "".padStart(unit.length + 8)
      : `${n.toLocaleString("en-US").padStart(7)} ${unit}`;
  const range = split.rangeOf === undefined ? "" : ` (records of :${split.rangeOf})`;
  return `${split.spec.padEnd(width)}  ${count(split.sequences, "sentences")}  ${count(split.tokens, "tokens")}  ${WHERE[split.where]}${range}`;
}

/** What `lagrange datasets` does (its options are declared in ../define/datasets.ts). */
export async function datasetsAction(
  name: string | undefined,
  options: DatasetsOptions,
): Promise<void> {
  process.stdout.write(datasetsCommand(name, options));
}
