import type { DecodingSummary } from "@lagrange/core";
import type { LearnedConstraints, TaggingTime } from "@lagrange/recipes";
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

/** `tagged … in … s (features …, scoring …, decoding …)` and the decoder's statistics. */
export function taggingReport(
  time: TaggingTime,
  wallSeconds: number,
  summary: DecodingSummary | undefined,
): string {
  const s = (ms: number) => (ms / 1000).toFixed(2);
  const base = `tagged ${time.sentences} sequences, ${time.tokens} tokens in ${wallSeconds.toFixed(2)} s (features ${s(time.featuresMs)} s, scoring ${s(time.scoringMs)} s, decoding ${s(time.decodingMs)} s)`;
  if (summary === undefined) return base;
  const problems = [
    summary.infeasible > 0 ? `${summary.infeasible} infeasible` : "",
    summary.hardViolated > 0
      ? `${summary.hardViolated} without a labelling that meets the hard constraints (least-violating one written)`
      : "",
  ].filter((x) => x !== "");
  return `${base}; ${summary.meanIterations.toFixed(2)} mean iterations (max ${summary.maxIterations}), ${(100 * summary.certifiedRate).toFixed(1)}% certified, ${(100 * summary.changedRate).toFixed(1)}% changed by constraints, ${(100 * summary.stillViolatedRate).toFixed(1)}% still violating a soft constraint${problems.length > 0 ? `, ${problems.join(", ")}` : ""}`;
}
