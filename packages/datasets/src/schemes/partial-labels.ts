import { LagrangeError } from "@lagrange/core";

/**
 * One token's gold label in partially annotated data: the label, `null` where it is unknown, or
 * the labels the token is restricted to (`["B-PER", "I-PER"]`). The shape chain-crf's training
 * reads (`LabelledSequence.labels`).
 */
export type PartialLabel = string | null | readonly string[];

/** The label cell that marks an unknown label. */
export const UNKNOWN_LABEL_CELL = "?";

/**
 * Whether a label cell is written in the partial-annotation syntax (`?`, `{…}`). Data read without
 * partial labels refuses such a cell rather than train on a label named "?".
 */
export function isPartialLabelCell(cell: string): boolean {
  return cell === UNKNOWN_LABEL_CELL || cell.startsWith("{");
}

/**
 * Reads one gold label cell of partially annotated data: `?` is an unknown label (null),
 * `{B-PER,I-PER}` restricts the token to those labels (a one-label set is that label; repeats
 * count once), and any other cell is the label itself. A malformed set (`{}`, `{B-PER`, `{A,,B}`,
 * `{A,{B}}`, `{A,?}`) throws a `bad-input` LagrangeError that starts with `place` (a file:line).
 */
export function parsePartialLabel(cell: string, place = "label"): PartialLabel {
  if (cell === UNKNOWN_LABEL_CELL) return null;
  if (!cell.startsWith("{")) return cell;
  const malformed = (detail: string) =>
    new LagrangeError(
      "bad-input",
      `${place}: label set ${JSON.stringify(cell)}: ${detail}; a label set is written {A,B,…} (for example {B-PER,I-PER}), an unknown label ?`,
    );
  if (!cell.endsWith("}") || cell.length < 2) throw malformed('expected a closing "}"');
  const inner = cell.slice(1, -1);
  if (inner.trim() === "") throw malformed("an empty set allows no label");
  // Spaces after the commas are read as a writer's, not as part of a label.
  const members = inner.split(",").map((member) => member.trim());
  for (const member of members) {
    if (member === "") throw malformed("expected a label between two commas");
    if (/[{}]/.test(member)) throw malformed(`label ${JSON.stringify(member)}: sets do not nest`);
    if (member === UNKNOWN_LABEL_CELL) {
      throw malformed("? stands alone for an unknown label, not inside a set");
    }
  }
  const labels = [...new Set(members)];
  return labels.length === 1 ? labels[0]! : labels;
}

/** Whether every label of a sequence is known (no unknown label, no label set). */
export function isFullyLabelled(labels: readonly PartialLabel[]): labels is readonly string[] {
  return labels.every((label) => typeof label === "string");
}
