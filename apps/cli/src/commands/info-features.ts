import { type ModelWeights, strongestWeights } from "@lagrange/chain-crf";
import { usageError } from "../exit-codes.js";
import { readModel, requireFile } from "../inputs.js";
import { isL2sModelPath } from "../l2s-models.js";

/** Above this many labels the transition matrix is listed as its strongest entries instead. */
const MATRIX_LABELS = 12;

/**
 * `lagrange info --features`: per label the strongest positive and negative state weights, and
 * the label transitions (the matrix for a few labels, else the strongest entries both ways).
 */
export async function featuresCommand(
  path: string,
  opts: { readonly json?: boolean; readonly top?: number; readonly label?: readonly string[] },
): Promise<string> {
  requireFile("model", path);
  if (await isL2sModelPath(path)) {
    throw usageError(`--features reads a CRF's weights; ${path} is a learning-to-search model`);
  }
  const model = await readModel(path, "model");
  for (const label of opts.label ?? []) {
    if (!model.labels.has(label)) {
      throw usageError(
        `--label ${label}: ${path} has no such label (lagrange info ${path} lists them)`,
      );
    }
  }
  const top = opts.top ?? 10;
  const weights = strongestWeights(model, {
    top,
    ...(opts.label === undefined ? {} : { labels: opts.label }),
  });
  if (opts.json === true) return `${JSON.stringify({ file: path, top, ...weights })}\n`;
  return renderWeights(weights, top, opts.label);
}

const signed = (x: number) => (x >= 0 ? `+${x.toFixed(3)}` : `−${(-x).toFixed(3)}`);

/** eli5's layout for CRFsuite: per label two columns, positive and negative, strongest first. */
export function renderWeights(
  weights: ModelWeights,
  top: number,
  only: readonly string[] | undefined,
): string {
  const lines: string[] = [];
  for (const entry of weights.labels) {
    lines.push(`${entry.label}  (${entry.nonZero} non-zero state weights)`);
    const left = entry.positive.map((w) => `${signed(w.weight)}  ${w.attribute}`);
    const right = entry.negative.map((w) => `${signed(w.weight)}  ${w.attribute}`);
    const width = Math.max(24, ...left.map((s) => s.length)) + 2;
    for (let k = 0; k < Math.max(left.length, right.length); k++) {
      lines.push(`  ${(left[k] ?? "").padEnd(width)}${right[k] ?? ""}`);
    }
    lines.push("");
  }
  lines.push(...transitionLines(weights, top, only));
  return `${lines.join("\n")}\n`;
}

function transitionLines(
  weights: ModelWeights,
  top: number,
  only: readonly string[] | undefined,
): string[] {
  const { names, transitions } = weights;
  const L = names.length;
  if (only === undefined && L <= MATRIX_LABELS) {
    const width = Math.max(8, ...names.map((n) => n.length)) + 1;
    const out = [
      `transitions (row → column)`,
      `${"".padEnd(width)}${names.map((n) => n.padStart(width)).join("")}`,
    ];
    for (let a = 0; a < L; a++) {
      const row = transitions[a]!.map((w) => signed(w).padStart(width)).join("");
      out.push(`${names[a]!.padEnd(width)}${row}`);
    }
    return out;
  }
  // Many labels (or some asked for): the strongest transitions into and out of them, both signs.
  const keep = new Set(only ?? names);
  const entries: { from: string; to: string; weight: number }[] = [];
  for (let a = 0; a < L; a++)
    for (let b = 0; b < L; b++) {
      const weight = transitions[a]![b]!;
      if (weight !== 0 && (keep.has(names[a]!) || keep.has(names[b]!))) {
        entries.push({ from: names[a]!, to: names[b]!, weight });
      }
    }
  const positive = entries.filter((e) => e.weight > 0).sort((x, y) => y.weight - x.weight);
  const negative = entries.filter((e) => e.weight < 0).sort((x, y) => x.weight - y.weight);
  const line = (e: { from: string; to: string; weight: number }) =>
    `  ${signed(e.weight)}  ${e.from} → ${e.to}`;
  return [
    `strongest transitions${only === undefined ? "" : ` into or out of ${only.join(", ")}`}, positive:`,
    ...positive.slice(0, top).map(line),
    "negative:",
    ...negative.slice(0, top).map(line),
  ];
}
