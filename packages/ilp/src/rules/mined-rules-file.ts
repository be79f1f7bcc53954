import type {
  ConstraintsFile,
  ConstraintsFileEntry,
  JsonValue,
} from "@lagrange/constraint-templates";
import { PAPER_COST_FLOOR } from "./costs.js";
import { type MinedRuleStats, RULE_COUNTING_UNITS, type RuleMining } from "./mining-options.js";

export interface MinedRulesFileOptions {
  /** Where the training data came from (a path or `name:split`). */
  readonly data?: string;
  /** More provenance, merged into the file's metadata (e.g. the format and the label scheme). */
  readonly metadata?: { readonly [key: string]: JsonValue };
}

/**
 * The mined rules as the project's versioned constraints file: one entry per rule with its cost
 * as the penalty, and in the metadata the miner's settings, the counting units, the data, the
 * candidate and drop counts, and each rule's support, violations and confidence (`rules`, keyed
 * by constraint id; the entries themselves carry only the format's fields).
 */
export function minedRulesFile(
  mining: RuleMining,
  options: MinedRulesFileOptions = {},
): ConstraintsFile {
  const { settings } = mining;
  const entries: ConstraintsFileEntry[] = mining.rules.map((r) => ({
    template: r.template,
    penalty: r.cost,
  }));
  const rules: { [id: string]: JsonValue } = {};
  for (const r of mining.rules) {
    rules[r.template.id] = {
      support: r.support,
      violations: r.violations,
      violationMagnitude: r.violationMagnitude,
      confidence: round(r.confidence),
      lift: round(r.lift),
      cost: r.cost,
    };
  }
  const countingUnits: { [family: string]: JsonValue } = {};
  for (const f of settings.families) countingUnits[f] = RULE_COUNTING_UNITS[f];
  return {
    index: mining.index,
    entries,
    metadata: {
      miner: "counting",
      substituteFor:
        "fersini2014 §3 extracts rules with Felici and Truemper's MINSAT/Lsquare logic learner; this file was mined by counting template instances (support and confidence thresholds)",
      ...(options.data === undefined ? {} : { data: options.data }),
      sentences: mining.sentences,
      tokens: mining.tokens,
      families: [...settings.families],
      delimiters: [...settings.delimiters],
      delimiterSource: settings.delimiterSource,
      minSupport: settings.minSupport,
      minConfidence: settings.minConfidence,
      minLift: settings.minLift,
      cost: settings.cost,
      ...(settings.cost === "paper" ? { paperCostFloor: PAPER_COST_FLOOR } : {}),
      smoothing: settings.smoothing,
      includeOutside: settings.includeOutside,
      keys: [...settings.keys],
      countingUnits,
      candidates: mining.candidates,
      dropped: { ...mining.dropped },
      ...options.metadata,
      rules,
    },
  };
}

/**
 * The per-rule statistics a mined constraints file carries in its metadata (`rules`), by
 * constraint id; empty when the file was not mined (or the field is malformed).
 */
export function minedRuleStats(file: ConstraintsFile): Map<string, MinedRuleStats> {
  const out = new Map<string, MinedRuleStats>();
  const rules = file.metadata?.rules;
  if (typeof rules !== "object" || rules === null || Array.isArray(rules)) return out;
  for (const [id, raw] of Object.entries(rules as { [id: string]: JsonValue })) {
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) continue;
    const r = raw as { [key: string]: JsonValue };
    const fields = ["support", "violations", "violationMagnitude", "confidence", "lift", "cost"];
    if (!fields.every((f) => typeof r[f] === "number")) continue;
    out.set(id, {
      support: r.support as number,
      violations: r.violations as number,
      violationMagnitude: r.violationMagnitude as number,
      confidence: r.confidence as number,
      lift: r.lift as number,
      cost: r.cost as number,
    });
  }
  return out;
}

/** Six significant digits: enough to read, stable in a diff. */
function round(x: number): number {
  return Number(x.toPrecision(6));
}
