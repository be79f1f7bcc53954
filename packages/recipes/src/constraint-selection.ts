/**
 * Constraint learning that never hurts: candidates, importance and penalties are learned on one
 * part of the held-out data, and a family (then a single constraint) is kept only if Soft-DD with
 * it scores a higher chunk F1 than without it on the other part, the check cut.
 */
import type { CrfModel } from "@lagrange/chain-crf";
import {
  type ConstraintsFileEntry,
  constraintInstantiator,
  documentInstantiator,
  hasDocumentScope,
  type WeightedTemplate,
} from "@lagrange/constraint-templates";
import {
  checkpoints,
  constraintViolation,
  type Decoder,
  type DecoderRegistry,
  LagrangeError,
} from "@lagrange/core";
import {
  f1FromCounts,
  LabellingScorer,
  type LabelScheme,
  pairedBootstrap,
  type Sentence,
  segmentLattice,
} from "@lagrange/datasets";
import {
  type LearnConstraintsOptions,
  type LearnedConstraints,
  learnConstraints,
  type ScoredSentence,
} from "./constraint-learning.js";
import { standardDecoders } from "./decoders.js";
import { modelScheme } from "./model-scheme.js";
import { jackknifeFolds } from "./task-presets/mined-lexicons.js";

/** Removal trials of the backward elimination over single constraints, at most (each decodes the check cut). */
export const DEFAULT_ELIMINATION_TRIALS = 40;

/**
 * Which sentences learn and which check: the check cut is one fold of `folds` — whole documents
 * when the data marks them, else blocks of 20 sentences (the jackknife's units); data too small for
 * that (fewer units than folds) is dealt sentence by sentence. A cut that still leaves either side
 * empty is a usage error naming the data.
 */
export function checkCut(
  sentences: readonly Sentence[],
  folds: number,
  label: string,
): { readonly learn: number[]; readonly check: number[] } {
  if (!Number.isInteger(folds) || folds < 2) {
    throw new LagrangeError("usage", `--check-folds: expected an integer ≥ 2, got ${folds}`);
  }
  let fold = jackknifeFolds(sentences, folds);
  if (!fold.some((f) => f !== 0)) fold = Int32Array.from(sentences, (_, i) => i % folds);
  const learn: number[] = [];
  const check: number[] = [];
  for (let i = 0; i < sentences.length; i++) (fold[i] === 0 ? check : learn).push(i);
  if (learn.length === 0 || check.length === 0) {
    throw new LagrangeError(
      "usage",
      `${label}: cutting 1 of ${folds} folds (whole documents, blocks of 20 sentences, or single sentences) for the check leaves ${check.length === 0 ? "no check sentence" : "nothing to learn from"} in ${sentences.length} sentences; give more data or fewer --check-folds`,
    );
  }
  return { learn, check };
}

export interface SelectConstraintsOptions extends LearnConstraintsOptions {
  /** Decoders `soft-dd` and `viterbi` come from here (default {@link standardDecoders}). */
  readonly registry?: DecoderRegistry;
  /** Default {@link DEFAULT_ELIMINATION_TRIALS}. */
  readonly eliminationTrials?: number;
  /** Resamples of the paired bootstrap (default 1000). */
  readonly bootstrapSamples?: number;
  readonly seed?: number;
}

/** Chunk F1 on the check cut, in percent, with the interval of a gain over a baseline. */
export interface CheckGain {
  /** Points of check-cut F1 (percent). */
  readonly gain: number;
  /** 95 % paired bootstrap interval over sentences, in points. */
  readonly interval: readonly [number, number];
}

export interface FamilyOutcome {
  readonly family: string;
  /** Constraints of the family with a learned penalty > 0 (the ones that decode). */
  readonly learned: number;
  /** Constraints kept in the written set. */
  readonly kept: number;
  /** For a kept family: its gain within the final set (the set against the set without it). */
  readonly gain?: CheckGain;
  /** For a dropped family: why, in words. */
  readonly reason?: string;
}

export interface SelectedConstraints {
  /** Candidates, importance and penalties, learned on the learning part only. */
  readonly learned: LearnedConstraints;
  /** The constraints written: those of kept families that survived elimination. */
  readonly entries: readonly ConstraintsFileEntry[];
  readonly families: readonly FamilyOutcome[];
  /** Single constraints removed from kept families, each with the check F1 its removal gained. */
  readonly eliminated: readonly { readonly description: string; readonly gain: number }[];
  readonly checkSentences: number;
  /** Chunk F1 (percent) of Viterbi and of Soft-DD with {@link entries} on the check cut. */
  readonly checkF1: { readonly before: number; readonly after: number };
  /** The final set against Viterbi; undefined when nothing is kept. */
  readonly gain: CheckGain | undefined;
}

/**
 * Learns constraints on `learn` (anzaroot2014: candidates, importance pruning, penalties) and
 * keeps what raises chunk F1 on `check` under Soft-DD: families by greedy forward selection (best
 * alone first, each added only if the set scores higher with it), then a bounded greedy backward
 * elimination of single constraints. Only `check` is decoded for selection.
 */
export async function learnAndSelectConstraints(
  model: CrfModel,
  learn: readonly ScoredSentence[],
  check: readonly ScoredSentence[],
  options: SelectConstraintsOptions,
): Promise<SelectedConstraints> {
  const learned = await learnConstraints(model, learn, options);
  const judge = new CheckJudge(model, check, options);
  const active = learned.entries.filter((e) => e.penalty !== null && e.penalty > 0);
  const families: FamilyOutcome[] = [];
  const solo: { family: string; entries: ConstraintsFileEntry[]; f1: number }[] = [];
  for (const family of new Set([
    ...options.families,
    ...learned.entries.map((e) => e.template.family),
  ])) {
    const entries = active.filter((e) => e.template.family === family);
    const candidates = learned.entries.filter((e) => e.template.family === family).length;
    if (entries.length === 0) {
      families.push({
        family,
        learned: 0,
        kept: 0,
        reason:
          candidates === 0
            ? "no candidate reached the importance threshold"
            : `all ${candidates} kept by importance learned a penalty of 0`,
      });
      continue;
    }
    solo.push({ family, entries, f1: await judge.f1(entries) });
  }
  solo.sort((a, b) => b.f1 - a.f1);
  let chosen: ConstraintsFileEntry[] = [];
  let best = judge.viterbiF1;
  const keptFamilies: string[] = [];
  for (const s of solo) {
    if (s.f1 <= judge.viterbiF1) {
      families.push({
        family: s.family,
        learned: s.entries.length,
        kept: 0,
        reason: `${s.f1 < judge.viterbiF1 ? "lowers" : "leaves"} check F1 ${s.f1 < judge.viterbiF1 ? `by ${points(judge.viterbiF1 - s.f1)}` : "unchanged"} on its own`,
      });
      continue;
    }
    const withIt = chosen.length === 0 ? s.f1 : await judge.f1([...chosen, ...s.entries]);
    if (withIt > best) {
      chosen = [...chosen, ...s.entries];
      best = withIt;
      keptFamilies.push(s.family);
    } else {
      families.push({
        family: s.family,
        learned: s.entries.length,
        kept: 0,
        reason: `+${points(s.f1 - judge.viterbiF1)} on its own, but nothing over ${keptFamilies.join(" + ")}`,
      });
    }
  }
  const eliminated: { description: string; gain: number }[] = [];
  let trials = options.eliminationTrials ?? DEFAULT_ELIMINATION_TRIALS;
  // First improvement, weakest penalty first, until a full pass removes nothing or trials run out.
  for (let removed = true; removed && trials > 0 && chosen.length > 1; ) {
    removed = false;
    for (const entry of [...chosen].sort((a, b) => a.penalty! - b.penalty!)) {
      if (trials-- <= 0 || chosen.length <= 1) break;
      const without = chosen.filter((e) => e !== entry);
      const f1 = await judge.f1(without);
      if (f1 > best) {
        eliminated.push({ description: entry.template.describe(), gain: f1 - best });
        chosen = without;
        best = f1;
        removed = true;
      }
    }
  }
  // A family stays only when its gain within the set is above 0 with 95 % confidence: a rise
  // the interval does not clear is as likely noise (on CoNLL-2003, such a family lost 0.54 F1 on
  // dev). Dropping one changes the others' gains, so the weakest goes first and the rest are redone.
  const gains = new Map<string, CheckGain>();
  for (let settled = false; !settled; ) {
    settled = true;
    gains.clear();
    let weakest: { family: string; gain: CheckGain } | undefined;
    for (const family of keptFamilies) {
      const own = chosen.filter((e) => e.template.family === family);
      if (own.length === 0) continue;
      const rest = chosen.filter((e) => e.template.family !== family);
      const gain = await judge.gain(chosen, rest, options);
      gains.set(family, gain);
      if (
        gain.interval[0] <= 0 &&
        (weakest === undefined || gain.interval[0] < weakest.gain.interval[0])
      ) {
        weakest = { family, gain };
      }
    }
    if (weakest !== undefined) {
      const { family, gain } = weakest;
      families.push({
        family,
        learned: active.filter((e) => e.template.family === family).length,
        kept: 0,
        reason: `its check gain +${points(gain.gain)} [${points(gain.interval[0])}, ${points(gain.interval[1])}] is not above 0 with 95 % confidence`,
      });
      chosen = chosen.filter((e) => e.template.family !== family);
      keptFamilies.splice(keptFamilies.indexOf(family), 1);
      best = chosen.length === 0 ? judge.viterbiF1 : await judge.f1(chosen);
      settled = false;
    }
  }
  for (const family of keptFamilies) {
    const own = chosen.filter((e) => e.template.family === family);
    const learnedCount = active.filter((e) => e.template.family === family).length;
    const gain = gains.get(family);
    if (own.length === 0 || gain === undefined) {
      families.push({
        family,
        learned: learnedCount,
        kept: 0,
        reason: "each of its constraints was removed by elimination",
      });
      continue;
    }
    families.push({ family, learned: learnedCount, kept: own.length, gain });
  }
  const order = new Map(learned.entries.map((e, i) => [e, i]));
  const entries = [...chosen].sort((a, b) => order.get(a)! - order.get(b)!);
  return {
    learned,
    entries,
    families,
    eliminated,
    checkSentences: judge.sentences,
    checkF1: { before: judge.viterbiF1, after: chosen.length === 0 ? judge.viterbiF1 : best },
    gain: entries.length === 0 ? undefined : await judge.gain(entries, [], options),
  };
}

function points(x: number): string {
  return x.toFixed(2);
}

/**
 * A check unit: a sentence, or a document (its sentences' chains end to end, `sentenceStarts`
 * marking each), decoded whole and scored sentence by sentence.
 */
export type CheckUnit = ScoredSentence & { readonly sentenceStarts?: Int32Array };

/**
 * Decodes the check cut under a set of constraints and scores it. A unit whose Viterbi
 * labelling breaks none of the set's constraints keeps that labelling without decoding: it is
 * Soft-DD's answer too (the first iteration's, with every multiplier at zero).
 */
export class CheckJudge {
  readonly #model: CrfModel;
  readonly #sentences: readonly (CheckUnit & { gold: Int32Array })[];
  readonly #gold: string[][];
  readonly #viterbi: Int32Array[];
  readonly #softDD: Decoder;
  readonly #scheme: LabelScheme;
  readonly #lower: (states: Int32Array) => Int32Array;
  readonly #checkpoint: ReturnType<typeof checkpoints>;
  readonly #signal: AbortSignal | undefined;
  readonly #viterbiCounts: Float64Array;
  readonly viterbiF1: number;

  constructor(
    model: CrfModel,
    check: readonly CheckUnit[],
    options: Pick<SelectConstraintsOptions, "registry" | "signal">,
  ) {
    const registry = options.registry ?? standardDecoders();
    this.#model = model;
    this.#sentences = check.filter(
      (s): s is CheckUnit & { gold: Int32Array } => s.gold !== undefined,
    );
    if (this.#sentences.length === 0) {
      throw new LagrangeError(
        "bad-input",
        "the check cut has no sentence with gold labels the model knows",
      );
    }
    this.#scheme = modelScheme(model);
    // Sentences are over the segment lattice's states (scoreSentences): scored as labels.
    const lattice =
      this.#scheme === "none" ? undefined : segmentLattice(model.labels.names(), this.#scheme);
    this.#lower = lattice?.expanded === true ? (y) => lattice.lower(y) : (y) => y;
    this.#gold = this.#sentences.map((s) => model.labels.decode(this.#lower(s.gold)));
    const viterbi = registry.create("viterbi");
    this.#viterbi = this.#sentences.map((s) => viterbi.decode({ scores: s.scores }).labels);
    this.#softDD = registry.create("soft-dd");
    this.#checkpoint = checkpoints(options.signal);
    this.#signal = options.signal;
    this.#viterbiCounts = this.#counts(this.#viterbi);
    this.viterbiF1 = percentF1(this.#viterbiCounts, this.#sentences.length);
  }

  get sentences(): number {
    return this.#sentences.length;
  }

  /** Labels of every check sentence under Soft-DD with `entries`. */
  async decode(entries: readonly WeightedTemplate[]): Promise<Int32Array[]> {
    const constraintsFor = hasDocumentScope(entries)
      ? documentInstantiator(entries)
      : constraintInstantiator(entries);
    const labels: Int32Array[] = [];
    for (let i = 0; i < this.#sentences.length; i++) {
      if (this.#checkpoint.due()) await this.#checkpoint.pause();
      const s = this.#sentences[i]!;
      const viterbi = this.#viterbi[i]!;
      const L = s.L;
      const constraints = constraintsFor({
        n: s.n,
        L,
        tokens: s.tokens,
        ...(s.sentenceStarts === undefined ? {} : { sentenceStarts: s.sentenceStarts }),
      });
      const broken = constraints.some((c) => constraintViolation(c, viterbi, L) > 1e-9);
      labels.push(
        broken
          ? this.#softDD.decode(
              { scores: s.scores, constraints },
              this.#signal === undefined ? {} : { signal: this.#signal },
            ).labels
          : viterbi,
      );
    }
    return labels;
  }

  /** Check-cut chunk F1 (percent) under Soft-DD with `entries`. */
  async f1(entries: readonly WeightedTemplate[]): Promise<number> {
    return percentF1(this.#counts(await this.decode(entries)), this.#sentences.length);
  }

  /** `with` against `without` (Viterbi when empty): the F1 gain and its bootstrap interval. */
  async gain(
    withSet: readonly WeightedTemplate[],
    withoutSet: readonly WeightedTemplate[],
    options: Pick<SelectConstraintsOptions, "bootstrapSamples" | "seed" | "signal">,
  ): Promise<CheckGain> {
    const a = this.#counts(await this.decode(withSet));
    const b =
      withoutSet.length === 0 ? this.#viterbiCounts : this.#counts(await this.decode(withoutSet));
    const result = pairedBootstrap(
      { units: this.#sentences.length, a, b, width: 3, metric: f1FromCounts },
      {
        samples: options.bootstrapSamples ?? 1000,
        seed: options.seed ?? 1,
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      },
    );
    return {
      gain: 100 * result.delta,
      interval: [100 * result.interval[0], 100 * result.interval[1]],
    };
  }

  /**
   * Per sentence (correct, predicted, gold) chunks as `lagrange eval` counts them (the one
   * scorer), or (correct, tokens, tokens) for plain tags: either way F1 of the sums is the score.
   */
  #counts(predicted: readonly Int32Array[]): Float64Array {
    const out = new Float64Array(this.#sentences.length * 3);
    for (let i = 0; i < predicted.length; i++) {
      const scorer = new LabellingScorer(this.#scheme);
      const gold = this.#gold[i]!;
      const labels = this.#model.labels.decode(this.#lower(predicted[i]!));
      const starts = this.#sentences[i]!.sentenceStarts ?? [0];
      for (let k = 0; k < starts.length; k++) {
        const to = starts[k + 1] ?? gold.length;
        scorer.add(gold.slice(starts[k]!, to), labels.slice(starts[k]!, to));
      }
      const score = scorer.score();
      if (score.kind === "accuracy") out.set([score.correct, score.tokens, score.tokens], i * 3);
      else {
        const e = score.evaluation;
        out.set([e.correctChunks, e.predictedChunks, e.goldChunks], i * 3);
      }
    }
    return out;
  }
}

function percentF1(counts: Float64Array, units: number): number {
  const sums = new Float64Array(3);
  for (let u = 0; u < units; u++) for (let k = 0; k < 3; k++) sums[k]! += counts[u * 3 + k]!;
  return 100 * f1FromCounts(sums);
}
