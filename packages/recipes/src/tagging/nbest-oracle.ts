import { f1FromCounts, sentenceChunkCounts } from "@lagrange/datasets";

/** Chunk F1 of the best labelling among each sentence's first k (an n-best list's ceiling). */
export interface OracleF1 {
  readonly k: number;
  readonly precision: number;
  readonly recall: number;
  readonly f1: number;
  /** Sentences whose oracle is not the first labelling. */
  readonly changed: number;
}

/**
 * Oracle chunk F1 (conlleval's chunks) of n-best lists at each k of `ks`: per sentence, the labelling
 * among its first k with the most correct chunks less false ones (2·correct − predicted, the
 * sentence's share of corpus F1's numerator less its denominator's predicted part; ties to the
 * better rank). `lists[s][r]` is sentence s's labelling of rank r (fewer than k is fine).
 */
export function oracleChunkF1(
  gold: readonly (readonly string[])[],
  lists: readonly (readonly (readonly string[])[])[],
  ks: readonly number[],
): OracleF1[] {
  if (lists.length !== gold.length) {
    throw new RangeError(`oracle F1: ${gold.length} gold sentences, ${lists.length} n-best lists`);
  }
  // Per sentence and rank: (correct, predicted, gold) chunk counts.
  const counts = gold.map((g, s) => {
    const list = lists[s]!;
    return sentenceChunkCounts(
      list.map(() => g as string[]),
      list as string[][],
    );
  });
  return ks.map((k) => {
    const sums = new Float64Array(3);
    let changed = 0;
    for (let s = 0; s < gold.length; s++) {
      const c = counts[s]!;
      const ranks = Math.min(k, c.length / 3);
      let best = 0;
      for (let r = 1; r < ranks; r++) {
        if (2 * c[r * 3]! - c[r * 3 + 1]! > 2 * c[best * 3]! - c[best * 3 + 1]!) best = r;
      }
      if (best > 0) changed++;
      if (ranks === 0) {
        // No labelling: every gold chunk missed.
        sums[2]! += goldChunks(gold[s]!);
        continue;
      }
      for (let j = 0; j < 3; j++) sums[j]! += c[best * 3 + j]!;
    }
    const [correct, predicted, goldCount] = [sums[0]!, sums[1]!, sums[2]!];
    return {
      k,
      precision: predicted > 0 ? correct / predicted : 0,
      recall: goldCount > 0 ? correct / goldCount : 0,
      f1: f1FromCounts(sums),
      changed,
    };
  });
}

function goldChunks(gold: readonly string[]): number {
  return sentenceChunkCounts([gold as string[]], [gold as string[]])[2]!;
}
