/**
 * Rule mining for fersini2014's five rule templates (§3, Eqs. 17–21): adjacency, precedence,
 * state change around a delimiter, begin–end, presence and precedence.
 *
 * **A substitute for the paper's learner.** Fersini et al. extract rules with the logic-mining
 * method of Felici and Truemper (Lsquare/Leibniz): a sequence of minimum-cost satisfiability
 * (MINSAT) problems that separate the samples of each class by DNF formulas, pruned by their
 * "discrimination power". The paper does not say which boolean attributes the samples carry, how
 * a DNF clause becomes a template instance (A, B, d), which thresholds prune the clauses, or how
 * the delimiters are chosen (see `shared/papers/notes-fersini2014-and-l2s.md` §A.3), so that
 * learner cannot be reproduced from it. This module is a transparent counting miner instead: it
 * enumerates every candidate template of the chosen families, counts over the gold training
 * labels how many of its instances fire (the support) and how many of those the gold labels
 * violate, and keeps the rules above a support and a confidence threshold (our parameters, not
 * the paper's). What it keeps is what the paper's clauses end up as — one template per rule, with
 * Eq. (30)'s satisfied and violated counts |D(l)| and |D̄(l)| recorded for the cost — so the rest
 * of fersini's pipeline (the rule costs, the two-phase ILP) is unchanged. The counting unit is the
 * template instance, stated per family in {@link RULE_COUNTING_UNITS}.
 */
import {
  type ConstraintFamily,
  OUTSIDE,
  RULE_FAMILIES,
  type SegmentIndex,
  type TemplateSpec,
  templateFromSpec,
} from "@lagrange/constraint-templates";
import { type Checkpoints, checkpoints, ProblemValidationError } from "@lagrange/core";
import { RULE_COST_POLICIES, ruleCost } from "./costs.js";
import {
  DEFAULT_RULE_DELIMITERS,
  type MinedRule,
  type MineRulesOptions,
  RULE_MINING_DEFAULTS,
  type RuleFamily,
  type RuleMining,
  type RuleMiningSettings,
  type RuleSentence,
} from "./mining-options.js";
import { Counts, countSentence, type RawStats } from "./rule-counts.js";

export {
  PAPER_COST_FLOOR,
  RULE_COST_POLICIES,
  type RuleCostOptions,
  type RuleCostPolicy,
  type RuleCounts,
  ruleCost,
  smoothedConfidence,
} from "./costs.js";

const PUNCTUATION = /^[\p{P}\p{S}]+$/u;

/**
 * Mines fersini2014's rule templates from gold-labelled sentences: for every candidate of the
 * chosen families (A ≠ B over the segment kinds of `index`, as `candidateTemplates` enumerates
 * them, and each delimiter for the state change), counts the instances whose premise fires and
 * those the gold labels violate, keeps the rules that pass `minSupport`, `minConfidence` and
 * `minLift`, and costs them. One pass over the data (two with `auto` delimiters); yields to the
 * event loop as it goes, so `signal` can stop it.
 */
export async function mineRules(
  sentences: readonly RuleSentence[],
  index: SegmentIndex,
  options: MineRulesOptions = {},
): Promise<RuleMining> {
  const settingsIn = resolveOptions(options);
  const checkpoint = checkpoints(options.signal);
  const L = index.L;
  checkSentences(sentences, L);

  const keys = ruleKeys(index, settingsIn.includeOutside, options.segments);
  const K = keys.length;
  const delimiters =
    settingsIn.delimiters === "auto"
      ? await autoDelimiters(sentences, settingsIn.minSupport, checkpoint)
      : settingsIn.delimiters;
  const settings: RuleMiningSettings = {
    ...settingsIn,
    delimiters,
    delimiterSource: settingsIn.delimiters === "auto" ? "auto" : "given",
    keys,
  };
  const families = new Set(settings.families);
  const D = families.has("state-change") ? delimiters.length : 0;
  const delimiterId = new Map<string, number>();
  for (let d = 0; d < D; d++) delimiterId.set(delimiters[d]!, d);

  // keysOf[t]: the rule keys whose inside set holds label t.
  const keysOf: Int32Array[] = Array.from({ length: L }, () => new Int32Array(0));
  {
    const lists: number[][] = Array.from({ length: L }, () => []);
    keys.forEach((key, k) => {
      for (const t of index.get(key).inside) lists[t]!.push(k);
    });
    lists.forEach((list, t) => {
      keysOf[t] = Int32Array.from(list);
    });
  }
  const c = new Counts(K, D);
  const last = new Int32Array(K);
  const before = new Int32Array(K);
  let tokens = 0;
  for (let i = 0; i < sentences.length; i++) {
    if (i % 64 === 0) {
      if (checkpoint.due()) await checkpoint.pause();
      options.onProgress?.({ sentences: i, total: sentences.length });
    }
    const { labels, tokens: words } = sentences[i]!;
    tokens += labels.length;
    countSentence(c, labels, words, keysOf, K, families, delimiterId, last, before);
  }
  options.onProgress?.({ sentences: sentences.length, total: sentences.length });
  if (checkpoint.due()) await checkpoint.pause();

  const rules: MinedRule[] = [];
  const dropped = { neverFired: 0, belowSupport: 0, belowConfidence: 0, belowLift: 0 };
  let candidates = 0;
  const consider = (spec: TemplateSpec, stats: RawStats) => {
    candidates++;
    const { support, violations } = stats;
    if (support === 0) {
      dropped.neverFired++;
      return;
    }
    if (support < settings.minSupport) {
      dropped.belowSupport++;
      return;
    }
    const confidence = 1 - violations / support;
    if (confidence < settings.minConfidence) {
      dropped.belowConfidence++;
      return;
    }
    const lift = stats.baseRate === 0 ? 0 : confidence / stats.baseRate;
    if (lift < settings.minLift) {
      dropped.belowLift++;
      return;
    }
    rules.push({
      template: templateFromSpec(spec, index),
      support,
      violations,
      violationMagnitude: stats.magnitude,
      confidence,
      lift,
      cost: ruleCost(
        settings.cost,
        { support, violations },
        { smoothing: settings.smoothing, minConfidence: settings.minConfidence },
      ),
    });
  };
  for (let a = 0; a < K; a++) {
    for (let b = 0; b < K; b++) {
      if (a === b) continue;
      const first = keys[a]!;
      const second = keys[b]!;
      for (const family of RULE_FAMILIES as readonly RuleFamily[]) {
        if (!families.has(family)) continue;
        if (family === "state-change") {
          for (let d = 0; d < D; d++) {
            const delimiter = delimiters[d]!;
            consider({ kind: "state-change", delimiter, first, second }, c.stateChange(d, a, b));
          }
        } else {
          consider({ kind: family, first, second }, c.stats(family, a, b));
        }
      }
    }
  }
  rules.sort(
    (x, y) =>
      y.cost - x.cost ||
      y.support - x.support ||
      y.lift - x.lift ||
      (x.template.id < y.template.id ? -1 : x.template.id > y.template.id ? 1 : 0),
  );
  return {
    index,
    rules,
    settings,
    candidates,
    dropped,
    sentences: sentences.length,
    tokens,
  };
}

/** The segment keys rules range over, in `candidateTemplates`' order. */
function ruleKeys(
  index: SegmentIndex,
  includeOutside: boolean,
  segments: readonly string[] | undefined,
): string[] {
  const allowed = segments === undefined ? undefined : new Set(segments);
  if (allowed !== undefined) for (const key of allowed) index.get(key); // unknown keys throw
  return index
    .segmentKeys()
    .map((k) => k.key)
    .filter((k) => (k === OUTSIDE ? includeOutside : allowed === undefined || allowed.has(k)));
}

/** The default delimiters plus every punctuation token seen `minSupport` times inside a sentence. */
async function autoDelimiters(
  sentences: readonly RuleSentence[],
  minSupport: number,
  checkpoint: Checkpoints,
): Promise<string[]> {
  const seen = new Map<string, number>();
  for (let i = 0; i < sentences.length; i++) {
    if (i % 256 === 0 && checkpoint.due()) await checkpoint.pause();
    const words = sentences[i]!.tokens;
    for (let p = 1; p + 1 < words.length; p++) {
      const w = words[p]!;
      const count = seen.get(w);
      if (count !== undefined) seen.set(w, count + 1);
      else if (PUNCTUATION.test(w)) seen.set(w, 1);
    }
  }
  const found = [...seen]
    .filter(([w, count]) => count >= minSupport && !DEFAULT_RULE_DELIMITERS.includes(w))
    .sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1))
    .map(([w]) => w);
  return [...DEFAULT_RULE_DELIMITERS, ...found];
}

type ResolvedOptions = Omit<RuleMiningSettings, "delimiters" | "delimiterSource" | "keys"> & {
  readonly delimiters: readonly string[] | "auto";
};

function resolveOptions(options: MineRulesOptions): ResolvedOptions {
  const bad = (field: string, message: string): never => {
    throw new ProblemValidationError(`mineRules options.${field}`, message);
  };
  const families = options.families ?? (RULE_FAMILIES as readonly RuleFamily[]);
  if (families.length === 0) bad("families", "name at least one rule family");
  for (const f of families) {
    if (!(RULE_FAMILIES as readonly ConstraintFamily[]).includes(f)) {
      bad("families", `"${f}" is not a rule family; expected some of ${RULE_FAMILIES.join(", ")}`);
    }
  }
  const minSupport = options.minSupport ?? RULE_MINING_DEFAULTS.minSupport;
  if (!(Number.isSafeInteger(minSupport) && minSupport >= 1)) {
    bad("minSupport", `expected an integer ≥ 1, got ${minSupport}`);
  }
  const minConfidence = options.minConfidence ?? RULE_MINING_DEFAULTS.minConfidence;
  if (!(minConfidence >= 0 && minConfidence <= 1)) {
    bad("minConfidence", `expected a number in 0…1, got ${minConfidence}`);
  }
  const minLift = options.minLift ?? RULE_MINING_DEFAULTS.minLift;
  if (!(Number.isFinite(minLift) && minLift >= 0)) {
    bad("minLift", `expected a finite number ≥ 0, got ${minLift}`);
  }
  const smoothing = options.smoothing ?? RULE_MINING_DEFAULTS.smoothing;
  if (!(Number.isFinite(smoothing) && smoothing > 0)) {
    bad("smoothing", `expected a finite α > 0, got ${smoothing}`);
  }
  const cost = options.cost ?? RULE_MINING_DEFAULTS.cost;
  if (!RULE_COST_POLICIES.includes(cost)) {
    bad("cost", `unknown policy "${cost}"; expected one of ${RULE_COST_POLICIES.join(", ")}`);
  }
  const delimiters = options.delimiters ?? "auto";
  if (delimiters !== "auto") {
    if (delimiters.length === 0 && families.includes("state-change")) {
      bad("delimiters", "the state-change family needs at least one delimiter");
    }
    for (const d of delimiters) {
      if (typeof d !== "string" || d.length === 0 || /\s/.test(d)) {
        bad("delimiters", `expected non-empty tokens without spaces, got ${JSON.stringify(d)}`);
      }
    }
    if (new Set(delimiters).size !== delimiters.length) {
      bad("delimiters", `duplicate delimiter in ${JSON.stringify(delimiters)}`);
    }
  }
  return {
    families: RULE_FAMILIES.filter((f) => families.includes(f as RuleFamily)) as RuleFamily[],
    delimiters,
    minSupport,
    minConfidence,
    minLift,
    cost,
    smoothing,
    includeOutside: options.includeOutside ?? RULE_MINING_DEFAULTS.includeOutside,
  };
}

function checkSentences(sentences: readonly RuleSentence[], L: number): void {
  sentences.forEach((s, i) => {
    const n = s.labels.length;
    if (s.tokens.length !== n) {
      throw new ProblemValidationError(
        `sentences[${i}]`,
        `${s.tokens.length} tokens but ${n} labels`,
      );
    }
    for (let p = 0; p < n; p++) {
      const y = s.labels[p]!;
      if (!(Number.isInteger(y) && y >= 0 && y < L)) {
        throw new ProblemValidationError(
          `sentences[${i}].labels[${p}]`,
          `expected a label id in 0…${L - 1}, got ${y}`,
        );
      }
    }
  });
}
