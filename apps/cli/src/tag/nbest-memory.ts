import { formatByteSize } from "@lagrange/core/bytes";
import { type Sentence, tokenPlace } from "@lagrange/datasets";
import type { NBestMethod } from "@lagrange/recipes";
import { usageError } from "../exit-codes.js";
import { DEFAULT_TRAINING_MEMORY_CAP, defaultTrainingMemoryLimit } from "../training-memory.js";

/**
 * The bytes one sentence's list of `k` labellings takes, at its peak, by `method`: list Viterbi's
 * k scores and back-pointers per token and label (its context holds at least 64 rows) and the k
 * labellings; the partition's open subproblems (each popped entry opens up to n, each a label
 * restriction of n·L bytes with its labels and decoding); the no-good cuts' k constraints of n
 * terms; and, every method, the entries and their output text. A sentence has at most Lⁿ
 * labellings, so a short one never lists more.
 */
export function nbestBytes(method: NBestMethod, n: number, L: number, k: number): number {
  const listed = n * Math.log(L) < Math.log(k) ? L ** n : k;
  const entries = listed * n * 48;
  if (method === "list-viterbi") return Math.max(64, n) * L * k * 12 + listed * n * 8 + entries;
  if (method === "no-good-cuts") return listed * n * 64 + entries;
  return listed * n * (n * L + 8 * n + 256) + entries;
}

/**
 * `--nbest k` against the memory bound (the one training's default is), for the longest sentence,
 * before any list is decoded: refused (exit 2) naming the figure, the bound and the k that fits.
 */
export function checkNBestMemory(
  sentences: readonly Sentence[],
  k: number,
  L: number,
  method: NBestMethod,
  limit = defaultTrainingMemoryLimit(),
): void {
  let longest: Sentence | undefined;
  for (const sentence of sentences) {
    if (longest === undefined || sentence.tokens.length > longest.tokens.length) longest = sentence;
  }
  if (longest === undefined) return;
  const n = longest.tokens.length;
  const needed = nbestBytes(method, n, L, k);
  if (needed <= limit) return;
  let fits = 1;
  for (let step = 2 ** 13; step >= 1; step >>= 1) {
    if (fits + step < k && nbestBytes(method, n, L, fits + step) <= limit) fits += step;
  }
  throw usageError(
    `--nbest ${k}: the ${k} best labellings of the longest sentence (${n} tokens, ${tokenPlace(longest, 0)}) by ${method} would need about ${formatByteSize(needed)}, more than the ${formatByteSize(limit)} bound (half this machine's memory, at most ${formatByteSize(DEFAULT_TRAINING_MEMORY_CAP)}); lower --nbest to ${fits} or less, or split the sentence`,
  );
}
