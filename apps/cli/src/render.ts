import type { CheckGain, LearnedConstraints, SelectedConstraints } from "@lagrange/recipes";
import { formatPenaltyReport } from "@lagrange/soft-dd";

/** The learned-constraint report in words, per family. */
export function learnedConstraintsReport(learned: LearnedConstraints): string {
  const byFamily = new Map<string, { kept: number; active: number }>();
  for (const e of learned.entries) {
    const f = byFamily.get(e.template.family) ?? { kept: 0, active: 0 };
    f.kept++;
    if (e.penalty !== null && e.penalty > 0) f.active++;
    byFamily.set(e.template.family, f);
  }
  const families = [...byFamily].map(([family, f]) => `${family} ${f.active}/${f.kept}`).join(", ");
  const dropped = learned.report.zero.slice(0, 5).map((e) => `  - ${e.description}`);
  return [
    `${learned.candidates} candidate constraints; ${learned.kept.length} kept by importance on ${learned.examples} learning sentences${learned.skipped > 0 ? ` (${learned.skipped} skipped: labels the model does not know)` : ""}.`,
    formatPenaltyReport(learned.report),
    ...(families === "" ? [] : [`Active per family (penalty > 0 / kept): ${families}.`]),
    ...(dropped.length > 0
      ? [
          `Dropped by learning (penalty 0), e.g.:${learned.report.zero.length > dropped.length ? ` (${dropped.length} of ${learned.report.zero.length})` : ""}`,
          ...dropped,
        ]
      : []),
    "",
  ].join("\n");
}

/** What the check cut kept and why: the set's gain, each family's, what was dropped. */
export function constraintSelectionReport(selected: SelectedConstraints): string {
  const kept = selected.families.filter((f) => f.gain !== undefined);
  const refused = selected.families.filter((f) => f.gain === undefined);
  const check = `check cut (${selected.checkSentences} sentences)`;
  return [
    selected.gain === undefined
      ? `No constraint raised chunk F1 on the ${check} (Viterbi ${selected.checkF1.before.toFixed(2)}): the file holds an empty set.`
      : `Kept ${selected.entries.length} constraints: chunk F1 on the ${check} ${selected.checkF1.before.toFixed(2)} → ${selected.checkF1.after.toFixed(2)}, ${gainText(selected.gain)}.`,
    ...kept.map(
      (f) => `  kept ${f.family}: ${f.kept} of ${f.learned} constraints, ${gainText(f.gain!)}`,
    ),
    ...refused.map((f) => `  dropped ${f.family}: ${f.reason}`),
    ...selected.eliminated
      .slice(0, 5)
      .map((e) => `  removed (+${e.gain.toFixed(2)} without it): ${e.description}`),
    ...(selected.eliminated.length > 5
      ? [`  removed ${selected.eliminated.length - 5} more single constraints`]
      : []),
    "",
  ].join("\n");
}

const signed = (x: number): string => `${x >= 0 ? "+" : ""}${x.toFixed(2)}`;

function gainText(g: CheckGain): string {
  return `${signed(g.gain)} F1 [${signed(g.interval[0])}, ${signed(g.interval[1])}] (95 % paired bootstrap)`;
}
