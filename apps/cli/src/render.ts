import type { LearnedConstraints } from "@lagrange/recipes";
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
    `${learned.candidates} candidate constraints; ${learned.kept.length} kept by importance on ${learned.examples} held-out sentences${learned.skipped > 0 ? ` (${learned.skipped} skipped: labels the model does not know)` : ""}.`,
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
