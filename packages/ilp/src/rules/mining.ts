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
  type ConstraintsFile,
  type ConstraintsFileEntry,
  type ConstraintTemplate,
  type JsonValue,
  OUTSIDE,
  RULE_FAMILIES,
  type SegmentIndex,
  type TemplateSpec,
  templateFromSpec,
} from "@lagrange/constraint-templates";
import { type Checkpoints, checkpoints, ProblemValidationError } from "@lagrange/core";
import { PAPER_COST_FLOOR, RULE_COST_POLICIES, type RuleCostPolicy, ruleCost } from "./costs.js";

export {
  PAPER_COST_FLOOR,
  RULE_COST_POLICIES,
  type RuleCostOptions,
  type RuleCostPolicy,
  type RuleCounts,
  ruleCost,
  smoothedConfidence,
} from "./costs.js";

/** The five rule families of fersini2014 §3. */
export type RuleFamily =
  | "adjacency"
  | "precedence"
  | "state-change"
  | "begin-end"
  | "presence-precedence";

/** One training sentence: its tokens and its gold label ids (ids of `index.labels`). */
export interface RuleSentence {
  readonly tokens: readonly string[];
  readonly labels: ArrayLike<number>;
}

/**
 * The delimiters the state-change template is always tried with: the paper's examples are a
 * bracket (CoNLL-2003: "Dynamo Batumi ( Georgia )") and a comma (US50), plus the other common
 * separators of citations and addresses.
 */
export const DEFAULT_RULE_DELIMITERS: readonly string[] = [",", ".", ";", ":", "(", ")"];

/** What one instance of each family is (the unit support and violations count). */
export const RULE_COUNTING_UNITS: Readonly<Record<RuleFamily, string>> = {
  adjacency: "a position p < n−1 whose label is in A",
  precedence: "a position whose label is in A",
  "state-change": "an occurrence of the delimiter at 1 ≤ p ≤ n−2",
  "begin-end": "a sentence whose first label is in A",
  "presence-precedence": "a position p ≥ 1 whose label is in A",
};

/**
 * Defaults, and why:
 * - `minSupport` 5: a rule seen fewer times has a confidence that means little (5 of 5 satisfied
 *   still leaves a 95 % Wilson lower bound of 0.57); the costs' smoothing discounts small
 *   supports further.
 * - `minConfidence` 0.9: the rules become soft constraints that the gold labels themselves break
 *   in up to 1 − confidence of their instances; past 10 % a rule would cost correct outputs often.
 * - `minLift` 1: a rule whose premise makes its consequent *less* likely than it is anyway (at
 *   every instance position, premise or not) says nothing about the premise; rules implied by the
 *   data or the label scheme everywhere (lift exactly 1) are legitimate and kept.
 * - `smoothing` 1: Laplace.
 * - `cost` `paper`: the method's own Eq. (30), made sign-safe (see {@link RuleCostPolicy}).
 * - `delimiters` `auto`: {@link DEFAULT_RULE_DELIMITERS} plus every token made only of punctuation
 *   or symbol characters that occurs at least `minSupport` times inside a sentence (brackets,
 *   quotes, dashes, slashes, `&`, …): a rarer one cannot reach the support anyway, and a word
 *   token is not a delimiter in the paper's sense ("a given delimiter punctuation mark").
 * - `includeOutside` true: `O` takes part as A or B ("the token after ")" is O"); most rules a
 *   flat NER corpus supports involve it.
 */
export const RULE_MINING_DEFAULTS = {
  minSupport: 5,
  minConfidence: 0.9,
  minLift: 1,
  smoothing: 1,
  cost: "paper" as RuleCostPolicy,
  includeOutside: true,
} as const;

export interface RuleMiningProgress {
  /** Sentences counted so far. */
  readonly sentences: number;
  readonly total: number;
}

export interface MineRulesOptions {
  /** Rule families to mine (default all five, {@link RULE_FAMILIES}). */
  readonly families?: readonly RuleFamily[];
  /**
   * Delimiter tokens of the state-change template: a list, or `auto` (default; see
   * {@link RULE_MINING_DEFAULTS}).
   */
  readonly delimiters?: readonly string[] | "auto";
  /** Keep rules with at least this many firing instances (integer ≥ 1; default 5). */
  readonly minSupport?: number;
  /** Keep rules whose instances hold at least this often in the gold labels (0…1; default 0.9). */
  readonly minConfidence?: number;
  /** Keep rules with confidence / (the consequent's rate without the premise) ≥ this (default 1). */
  readonly minLift?: number;
  /** Cost policy for each kept rule (default `paper`). */
  readonly cost?: RuleCostPolicy;
  /** Laplace smoothing α > 0 of the costs (default 1). */
  readonly smoothing?: number;
  /** Rules may name `O`, tokens outside every segment (default true). */
  readonly includeOutside?: boolean;
  /** Restrict A and B to these segment keys (`O` is governed by `includeOutside`). */
  readonly segments?: readonly string[];
  readonly signal?: AbortSignal;
  /** Called every 64 sentences counted and once at the end. */
  readonly onProgress?: (progress: RuleMiningProgress) => void;
}

/** The settings a mining run used, with every default filled in. */
export interface RuleMiningSettings {
  readonly families: readonly RuleFamily[];
  readonly delimiters: readonly string[];
  /** Whether the delimiters were found in the data (`auto`) or given. */
  readonly delimiterSource: "auto" | "given";
  readonly minSupport: number;
  readonly minConfidence: number;
  readonly minLift: number;
  readonly cost: RuleCostPolicy;
  readonly smoothing: number;
  readonly includeOutside: boolean;
  /** The segment keys A and B range over. */
  readonly keys: readonly string[];
}

/** A rule that passed the thresholds, with its counts over the training data. */
export interface MinedRule extends MinedRuleStats {
  readonly template: ConstraintTemplate;
}

export interface RuleMining {
  readonly index: SegmentIndex;
  /** Most important first: by cost, then support, then lift, then id. */
  readonly rules: readonly MinedRule[];
  readonly settings: RuleMiningSettings;
  /** Candidate templates considered (families × ordered pairs A ≠ B × delimiters). */
  readonly candidates: number;
  /** Why the other candidates were dropped (each counted under its first failed test). */
  readonly dropped: {
    /** Support 0: the premise never fires in the data. */
    readonly neverFired: number;
    readonly belowSupport: number;
    readonly belowConfidence: number;
    readonly belowLift: number;
  };
  readonly sentences: number;
  readonly tokens: number;
}

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

interface RawStats {
  readonly support: number;
  readonly violations: number;
  readonly magnitude: number;
  /** The consequent's rate over every instance position, premise or not. */
  readonly baseRate: number;
}

/** The counters of one mining pass (K rule keys, D delimiters). */
class Counts {
  // adjacency: positions p < n−1 with a at p; with a at p and b at p+1; b at p+1 for any p.
  readonly adjSupport: Float64Array;
  readonly adjBoth: Float64Array;
  readonly adjNext: Float64Array;
  adjPositions = 0;
  // precedence: a tokens; a tokens with no b strictly later; positions with a b strictly later.
  readonly precSupport: Float64Array;
  readonly precViolated: Float64Array;
  readonly precLater: Float64Array;
  precPositions = 0;
  // state change: per delimiter its inner occurrences, a before, b after, both; any inner position.
  readonly scSupport: Float64Array;
  readonly scBefore: Float64Array;
  readonly scAfter: Float64Array;
  readonly scBoth: Float64Array;
  readonly scAny: Float64Array;
  scPositions = 0;
  // begin–end: sentences starting with a; starting with a and ending with b; ending with b.
  readonly beSupport: Float64Array;
  readonly beBoth: Float64Array;
  readonly beEnd: Float64Array;
  beSentences = 0;
  // presence–precedence: a tokens at p ≥ 1; of those with a b before; Σ b tokens before; any p ≥ 1
  // with a b before.
  readonly ppSupport: Float64Array;
  readonly ppViolated: Float64Array;
  readonly ppMagnitude: Float64Array;
  readonly ppAnyBefore: Float64Array;
  ppPositions = 0;

  constructor(
    readonly K: number,
    readonly D: number,
  ) {
    const KK = K * K;
    this.adjSupport = new Float64Array(K);
    this.adjBoth = new Float64Array(KK);
    this.adjNext = new Float64Array(K);
    this.precSupport = new Float64Array(K);
    this.precViolated = new Float64Array(KK);
    this.precLater = new Float64Array(K);
    this.scSupport = new Float64Array(D);
    this.scBefore = new Float64Array(D * K);
    this.scAfter = new Float64Array(D * K);
    this.scBoth = new Float64Array(D * KK);
    this.scAny = new Float64Array(KK);
    this.beSupport = new Float64Array(K);
    this.beBoth = new Float64Array(KK);
    this.beEnd = new Float64Array(K);
    this.ppSupport = new Float64Array(K);
    this.ppViolated = new Float64Array(KK);
    this.ppMagnitude = new Float64Array(KK);
    this.ppAnyBefore = new Float64Array(K);
  }

  stats(family: Exclude<RuleFamily, "state-change">, a: number, b: number): RawStats {
    const ab = a * this.K + b;
    const rate = (count: number, total: number) => (total === 0 ? 0 : count / total);
    switch (family) {
      case "adjacency": {
        const support = this.adjSupport[a]!;
        const violations = support - this.adjBoth[ab]!;
        const baseRate = rate(this.adjNext[b]!, this.adjPositions);
        return { support, violations, magnitude: violations, baseRate };
      }
      case "precedence": {
        const violations = this.precViolated[ab]!;
        const baseRate = rate(this.precLater[b]!, this.precPositions);
        return { support: this.precSupport[a]!, violations, magnitude: violations, baseRate };
      }
      case "begin-end": {
        const support = this.beSupport[a]!;
        const violations = support - this.beBoth[ab]!;
        const baseRate = rate(this.beEnd[b]!, this.beSentences);
        return { support, violations, magnitude: violations, baseRate };
      }
      case "presence-precedence": {
        const baseRate = 1 - rate(this.ppAnyBefore[b]!, this.ppPositions);
        return {
          support: this.ppSupport[a]!,
          violations: this.ppViolated[ab]!,
          magnitude: this.ppMagnitude[ab]!,
          baseRate,
        };
      }
    }
  }

  stateChange(d: number, a: number, b: number): RawStats {
    const { K } = this;
    const support = this.scSupport[d]!;
    const both = this.scBoth[(d * K + a) * K + b]!;
    return {
      support,
      violations: support - both,
      // Each occurrence pays one per wrong side: 2·support − (a before) − (b after).
      magnitude: 2 * support - this.scBefore[d * K + a]! - this.scAfter[d * K + b]!,
      baseRate: this.scPositions === 0 ? 0 : this.scAny[a * K + b]! / this.scPositions,
    };
  }
}

function countSentence(
  c: Counts,
  labels: ArrayLike<number>,
  words: readonly string[],
  keysOf: readonly Int32Array[],
  K: number,
  families: ReadonlySet<RuleFamily>,
  delimiterId: ReadonlyMap<string, number>,
  last: Int32Array,
  before: Int32Array,
): void {
  const n = labels.length;
  if (n === 0) return;
  const at = (p: number) => keysOf[labels[p]!]!;
  if (families.has("adjacency")) {
    c.adjPositions += n - 1;
    for (let p = 0; p + 1 < n; p++) {
      const here = at(p);
      const next = at(p + 1);
      for (const b of next) c.adjNext[b]!++;
      for (const a of here) {
        c.adjSupport[a]!++;
        for (const b of next) c.adjBoth[a * K + b]!++;
      }
    }
  }
  if (families.has("precedence")) {
    last.fill(-1);
    for (let p = 0; p < n; p++) for (const b of at(p)) last[b] = p;
    c.precPositions += n;
    for (let b = 0; b < K; b++) c.precLater[b]! += Math.max(0, last[b]!);
    for (let p = 0; p < n; p++) {
      for (const a of at(p)) {
        c.precSupport[a]!++;
        // Violated when no b lies strictly after p.
        for (let b = 0; b < K; b++) if (last[b]! <= p) c.precViolated[a * K + b]!++;
      }
    }
  }
  if (families.has("state-change")) {
    for (let p = 1; p + 1 < n; p++) {
      c.scPositions++;
      const prev = at(p - 1);
      const next = at(p + 1);
      for (const a of prev) for (const b of next) c.scAny[a * K + b]!++;
      const d = delimiterId.get(words[p]!);
      if (d === undefined) continue;
      c.scSupport[d]!++;
      for (const a of prev) c.scBefore[d * K + a]!++;
      for (const b of next) c.scAfter[d * K + b]!++;
      for (const a of prev) for (const b of next) c.scBoth[(d * K + a) * K + b]!++;
    }
  }
  if (families.has("begin-end")) {
    c.beSentences++;
    const end = at(n - 1);
    for (const b of end) c.beEnd[b]!++;
    for (const a of at(0)) {
      c.beSupport[a]!++;
      for (const b of end) c.beBoth[a * K + b]!++;
    }
  }
  if (families.has("presence-precedence")) {
    before.fill(0);
    for (let p = 0; p < n; p++) {
      if (p >= 1) {
        c.ppPositions++;
        for (let b = 0; b < K; b++) if (before[b]! > 0) c.ppAnyBefore[b]!++;
        for (const a of at(p)) {
          c.ppSupport[a]!++;
          for (let b = 0; b < K; b++) {
            const count = before[b]!;
            if (count === 0) continue;
            c.ppViolated[a * K + b]!++;
            c.ppMagnitude[a * K + b]! += count;
          }
        }
      }
      for (const b of at(p)) before[b]!++;
    }
  }
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

export interface MinedRulesFileOptions {
  /** Where the training data came from (a path or `name:split`). */
  readonly data?: string;
  /** More provenance, merged into the file's metadata (e.g. the format and the label scheme). */
  readonly metadata?: { readonly [key: string]: JsonValue };
}

/**
 * A mined rule's counts over the training data; the constraints file's metadata stores them per
 * rule (under `rules`, by id).
 */
export interface MinedRuleStats {
  /** Instances whose premise fires (see {@link RULE_COUNTING_UNITS}). */
  readonly support: number;
  /** Instances the gold labels violate (each counts once, however badly). */
  readonly violations: number;
  /** Σ `template.violation` over the sentences: the amount a penalty is paid on. */
  readonly violationMagnitude: number;
  /** 1 − violations / support. */
  readonly confidence: number;
  /** Confidence over the rate the consequent holds at every instance position, premise or not. */
  readonly lift: number;
  /** Under the run's cost policy; ≥ 0 and finite. */
  readonly cost: number;
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
