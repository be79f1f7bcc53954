import { LagrangeError } from "@lagrange/core";
import type { SchemeName, SchemeOptions } from "../schemes/labels.js";
import { extractSpans } from "../schemes/spans.js";
import {
  type ChunkEvaluation,
  ConllevalCounter,
  type PrecisionRecallF1,
  prf,
  type TypeEvaluation,
} from "./conlleval.js";
import { compareCodePoints } from "./perl.js";
import { Tally } from "./tally.js";

export type LabelSequences = readonly (readonly string[])[];

export interface ChunkEvaluationOptions {
  /** conlleval `-r`: every non-outside tag is a one-token chunk of that type. */
  readonly raw?: boolean;
  /** conlleval `-o`, read only with `raw`; with `scheme`, the scheme's outside label. Default `O`. */
  readonly outside?: string;
  /**
   * Decode chunks with this scheme (see extractSpans) instead of conlleval's rules. Needed for
   * BIOES/BILOU, whose S-/U- conlleval does not know. Chunks then match on (type, start, end).
   */
  readonly scheme?: SchemeName;
  /** With `scheme`: split hierarchical labels here and score spans at every level. */
  readonly levelSeparator?: string;
}

/** Raised when gold and predicted label sequences do not line up. */
export class AlignmentError extends LagrangeError {
  override readonly name = "AlignmentError";
  constructor(message: string) {
    super("bad-input", message);
  }
}

export function checkAligned(gold: LabelSequences, predicted: LabelSequences): void {
  if (gold.length !== predicted.length) {
    throw new AlignmentError(
      `expected as many predicted sentences as gold ones: ${gold.length} gold, ${predicted.length} predicted`,
    );
  }
  for (let s = 0; s < gold.length; s++) {
    if (gold[s]!.length !== predicted[s]!.length) {
      throw new AlignmentError(
        `sentence ${s}: ${gold[s]!.length} gold labels but ${predicted[s]!.length} predicted`,
      );
    }
  }
}

/**
 * Chunk precision/recall/F1 over sentences of labels. By default exactly as conlleval counts
 * them, each sentence followed by a sentence break (so the result equals evaluateConllText on
 * the same data written one token per line, blank line after each sentence).
 */
export function evaluateChunks(
  gold: LabelSequences,
  predicted: LabelSequences,
  options: ChunkEvaluationOptions = {},
): ChunkEvaluation {
  checkAligned(gold, predicted);
  if (options.scheme !== undefined) {
    const { perLevel: _, ...rest } = scoreSegments(gold, predicted, options.scheme, {
      ...(options.levelSeparator === undefined ? {} : { levelSeparator: options.levelSeparator }),
      ...(options.outside === undefined ? {} : { outside: options.outside }),
    });
    return rest;
  }
  const counter = new ConllevalCounter();
  const oTag = options.outside ?? "O";
  const rawLabel = (label: string): string => {
    const o = label === oTag ? "O" : label;
    return o === "O" ? o : `B-${o}`;
  };
  for (let s = 0; s < gold.length; s++) {
    const g = gold[s]!;
    const p = predicted[s]!;
    for (let i = 0; i < g.length; i++) {
      if (options.raw === true) counter.addToken(rawLabel(g[i]!), rawLabel(p[i]!));
      else counter.addToken(g[i]!, p[i]!);
    }
    counter.addBoundary();
  }
  return counter.finish();
}

export interface LevelEvaluation extends PrecisionRecallF1 {
  readonly gold: number;
  readonly count: number;
  readonly correct: number;
}

export interface SegmentEvaluation extends ChunkEvaluation {
  /** Segments of each hierarchy level (index 0 = top level). */
  readonly perLevel: readonly LevelEvaluation[];
}

export interface SegmentEvaluationOptions {
  /** Default IOB2 (the UMass citation labels' per-level BIO). */
  readonly scheme?: SchemeName;
  /** Default `/`. */
  readonly levelSeparator?: string;
  readonly outside?: string;
}

/**
 * Field (segment) precision/recall/F1 for hierarchical labels: a predicted segment is correct
 * when a gold segment has the same type path, start and end. Overall counts pool every level;
 * `perType` is keyed by type path (`authors/person`), `perLevel` by depth.
 */
export function evaluateSegments(
  gold: LabelSequences,
  predicted: LabelSequences,
  options: SegmentEvaluationOptions = {},
): SegmentEvaluation {
  checkAligned(gold, predicted);
  return scoreSegments(gold, predicted, options.scheme ?? "IOB2", {
    levelSeparator: options.levelSeparator ?? "/",
    ...(options.outside === undefined ? {} : { outside: options.outside }),
  });
}

function scoreSegments(
  gold: LabelSequences,
  predicted: LabelSequences,
  scheme: SchemeName,
  schemeOptions: SchemeOptions,
): SegmentEvaluation {
  const counter = new SegmentCounter(scheme, schemeOptions);
  for (let s = 0; s < gold.length; s++) counter.add(gold[s]!, predicted[s]!);
  return counter.finish();
}

interface SegmentCounts {
  gold: number;
  count: number;
  correct: number;
}

/**
 * Span (segment) counting fed one sentence at a time, so that a stream is scored in bounded
 * memory: a predicted span is correct when a gold span has the same type path, start and end.
 * The core of evaluateSegments and of evaluateChunks with a `scheme`.
 */
export class SegmentCounter {
  readonly #byType = new Tally<string, SegmentCounts>(zeroCounts);
  readonly #byLevel = new Tally<number, SegmentCounts>(zeroCounts);
  #tokens = 0;
  #correctTokens = 0;

  constructor(
    readonly scheme: SchemeName,
    readonly schemeOptions: SchemeOptions = {},
  ) {}

  /** One sentence's gold and predicted labels (as many of each). */
  add(g: readonly string[], p: readonly string[]): void {
    const { scheme, schemeOptions } = this;
    this.#tokens += g.length;
    for (let i = 0; i < g.length; i++) if (g[i] === p[i]) this.#correctTokens++;
    const goldKeys = new Set<string>();
    for (const span of extractSpans(g, scheme, schemeOptions)) {
      goldKeys.add(`${span.start}:${span.end}:${span.type}`);
      this.#byType.of(span.type).gold++;
      this.#byLevel.of(span.level).gold++;
    }
    for (const span of extractSpans(p, scheme, schemeOptions)) {
      const typeEntry = this.#byType.of(span.type);
      const level = this.#byLevel.of(span.level);
      typeEntry.count++;
      level.count++;
      if (goldKeys.has(`${span.start}:${span.end}:${span.type}`)) {
        typeEntry.correct++;
        level.correct++;
      }
    }
  }

  finish(): SegmentEvaluation {
    const byType = this.#byType;
    const byLevel = this.#byLevel;
    const tokens = this.#tokens;
    const correctTokens = this.#correctTokens;
    let goldChunks = 0;
    let predictedChunks = 0;
    let correctChunks = 0;
    const perType: [string, TypeEvaluation][] = [];
    for (const type of [...byType.counts.keys()].sort(compareCodePoints)) {
      const c = byType.of(type);
      goldChunks += c.gold;
      predictedChunks += c.count;
      correctChunks += c.correct;
      perType.push([type, { ...prf(c.correct, c.count, c.gold), ...c }]);
    }
    const perLevel: LevelEvaluation[] = [];
    const depth = Math.max(0, ...[...byLevel.counts.keys()].map((level) => level + 1));
    for (let level = 0; level < depth; level++) {
      const c = byLevel.of(level);
      perLevel.push({ ...prf(c.correct, c.count, c.gold), ...c });
    }
    return {
      tokens,
      correctTokens,
      tokenAccuracy: tokens > 0 ? correctTokens / tokens : 0,
      goldChunks,
      predictedChunks,
      correctChunks,
      ...prf(correctChunks, predictedChunks, goldChunks),
      perType: Object.fromEntries(perType),
      perLevel,
    };
  }
}

function zeroCounts(): SegmentCounts {
  return { gold: 0, count: 0, correct: 0 };
}
