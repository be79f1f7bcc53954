import type { InferenceContext } from "./context.js";
import { localScores } from "./local.js";
import { MaskCopy, valuesUnchanged } from "./mask-copy.js";
import type { ChainView } from "./view.js";

const NEG = Number.NEGATIVE_INFINITY;

/**
 * Best labelling of the chain into out[0..n). Returns its score, or −∞ when no labelling is
 * feasible (then `out` is filled with 0). Ties go to the lowest label id.
 */
export function viterbiKernel(ctx: InferenceContext, v: ChainView, out: Int32Array): number {
  ctx.ensure(v.n, v.L);
  localScores(v, 0, ctx.delta, 0);
  if (v.n > 1) {
    if (v.transitionStride === 0) boundedRecursion(ctx, v);
    else scanRecursion(ctx, v, v.allowed);
  }
  return backtrack(ctx, v, out);
}

/**
 * The max-product recursion for position-specific transitions: every predecessor, or with a mask
 * only the allowed ones (the context's CSR predecessor lists: O(n · #allowed) instead of
 * O(n · L²)). Predecessors are visited in ascending order with a strict comparison, so ties go to
 * the lowest label id; a −∞ predecessor cannot win, so arg = −1 means unreachable.
 */
function scanRecursion(ctx: InferenceContext, v: ChainView, allowed: Uint8Array | null): void {
  const { n, L, transition } = v;
  const { delta, back } = ctx;
  if (allowed !== null) ctx.predecessors(allowed, L);
  const { predOffsets: offsets, predLabels: preds, predPairs: pairs } = ctx;
  for (let i = 1; i < n; i++) {
    const prev = (i - 1) * L;
    const cur = i * L;
    localScores(v, i, delta, cur);
    const tb = v.transitionBase + (i - 1) * v.transitionStride;
    for (let b = 0; b < L; b++) {
      let best = NEG;
      let arg = -1;
      const kEnd = allowed === null ? L : offsets[b + 1]!;
      for (let k = allowed === null ? 0 : offsets[b]!; k < kEnd; k++) {
        const a = allowed === null ? k : preds[k]!;
        const s = delta[prev + a]! + transition[tb + (allowed === null ? a * L + b : pairs[k]!)]!;
        if (s > best) {
          best = s;
          arg = a;
        }
      }
      delta[cur + b] = arg < 0 ? NEG : delta[cur + b]! + best;
      back[cur + b] = arg;
    }
  }
}

/**
 * A shared block prepared for the recursion, rebuilt only when the mask or the allowed transition
 * values change (a decoder scores sentence after sentence under one model): the block transposed, so that a column's scores are contiguous, with −∞ where the mask
 * forbids; each column's best score; and the columns split into heavy ones (more than half of the
 * labels may precede them: bounded scans) and light ones (CSR predecessor lists with their
 * scores gathered). Under a hierarchical BIO mask the columns into B-x and O are heavy, those into
 * I-x light (two or three predecessors).
 */
class ColumnPlan {
  L = -1;
  masked = false;
  readonly mask = new MaskCopy();
  /** The raw values the plan was made from, and the pairs compared (all L² when unmasked). */
  values: Float64Array = new Float64Array(0);
  pairs: Int32Array = new Int32Array(0);
  base = -1;
  transposed: Float64Array = new Float64Array(0);
  ceiling: Float64Array = new Float64Array(0);
  heavy: Int32Array = new Int32Array(0);
  light: Int32Array = new Int32Array(0);
  offsets: Int32Array = new Int32Array(0);
  preds: Int32Array = new Int32Array(0);
  scores: Float64Array = new Float64Array(0);

  /** Whether the plan was built for the view's label count, block offset and mask. */
  fits(v: ChainView): boolean {
    if (this.L !== v.L || this.base !== v.transitionBase) return false;
    if ((v.allowed !== null) !== this.masked) return false;
    return v.allowed === null || this.mask.matches(v.allowed, v.L);
  }

  /**
   * Makes the plan current for the view's block values, and for its mask unless `fits` (the
   * caller has just checked {@link fits}): allocates only when the mask changes shape.
   */
  update(v: ChainView, fits: boolean): void {
    const { L, transition: trans, transitionBase: base, allowed } = v;
    if (fits) {
      if (valuesUnchanged(this.pairs, this.values, trans, base)) return;
    } else {
      this.#structure(L, allowed);
      this.base = base;
    }
    const values = this.values;
    const pairs = this.pairs;
    for (let q = 0; q < pairs.length; q++) values[pairs[q]!] = trans[base + pairs[q]!]!;
    const transposed = this.transposed;
    const ceiling = this.ceiling;
    ceiling.fill(NEG);
    for (let a = 0; a < L; a++) {
      for (let b = 0; b < L; b++) {
        const ab = a * L + b;
        const t = allowed !== null && allowed[ab] === 0 ? NEG : trans[base + ab]!;
        transposed[b * L + a] = t;
        if (t > ceiling[b]!) ceiling[b] = t;
      }
    }
    const lightScores = this.scores;
    const preds = this.preds;
    const light = this.light;
    const offsets = this.offsets;
    for (let g = 0; g < light.length; g++) {
      const b = light[g]!;
      for (let k = offsets[g]!; k < offsets[g + 1]!; k++)
        lightScores[k] = trans[base + preds[k]! * L + b]!;
    }
  }

  #structure(L: number, allowed: Uint8Array | null): void {
    this.L = L;
    this.masked = allowed !== null;
    const LL = L * L;
    if (allowed !== null) this.mask.set(allowed, L);
    const heavy: number[] = [];
    const light: number[] = [];
    const offsets: number[] = [];
    const preds: number[] = [];
    const pairs: number[] = [];
    for (let b = 0; b < L; b++) {
      let count = 0;
      for (let a = 0; a < L; a++) if (allowed === null || allowed[a * L + b] !== 0) count++;
      if (2 * count > L) {
        heavy.push(b);
        continue;
      }
      light.push(b);
      offsets.push(preds.length);
      for (let a = 0; a < L; a++) if (allowed![a * L + b] !== 0) preds.push(a);
    }
    offsets.push(preds.length);
    for (let ab = 0; ab < LL; ab++) if (allowed === null || allowed[ab] !== 0) pairs.push(ab);
    this.values = new Float64Array(LL);
    this.pairs = Int32Array.from(pairs);
    this.transposed = new Float64Array(LL);
    this.ceiling = new Float64Array(L);
    this.heavy = Int32Array.from(heavy);
    this.light = Int32Array.from(light);
    this.offsets = Int32Array.from(offsets);
    this.preds = Int32Array.from(preds);
    this.scores = new Float64Array(preds.length);
  }
}

/**
 * Plans by transition block: every slave and decoder of one model shares its block (a view on the
 * weights), so thousands of dual-decomposition slaves share one plan instead of holding an L²
 * copy each. A plan is checked against the block's values and the mask on every use, so sharing
 * is only a cache; a block used under several masks keeps a few plans.
 */
const plans = new WeakMap<Float64Array, ColumnPlan[]>();
const PLANS_PER_BLOCK = 4;

function planFor(v: ChainView): ColumnPlan {
  let list = plans.get(v.transition);
  if (list === undefined) {
    list = [];
    plans.set(v.transition, list);
  }
  for (let q = 0; q < list.length; q++) {
    const plan = list[q]!;
    if (!plan.fits(v)) continue;
    plan.update(v, true);
    return plan;
  }
  const plan = new ColumnPlan();
  if (list.length >= PLANS_PER_BLOCK) list.shift();
  list.push(plan);
  plan.update(v, false);
  return plan;
}

/**
 * Leaders kept per position: about L / 11, at least 2 and at most 12. On UMass citations (131
 * labels) the winning predecessor of a heavy column is the best previous label for half the
 * columns and within the best 4 for 75 %, 10 for 90 %, and of K = 4 … 24, 8 to 16 were fastest
 * (12 by a hair; a miss costs one contiguous scan of the column); on UD English POS (17 labels)
 * K = 2 or 3 was fastest, 12 cost 25 % more.
 */
function leaders(L: number): number {
  return Math.min(12, Math.max(2, Math.ceil(L / 11)), L);
}

/**
 * The recursion for a shared transition block (masked or not). Light columns scan their few
 * predecessors. A heavy column b scans the K best previous labels, best first, and stops once
 * δ(a) + max_a' T(a', b) falls below its best: no label further down can win or tie. When the
 * leaders run out first, the best of the others is at most δ_rest + max T(·, b), δ_rest being the
 * best previous score outside the leaders; a best strictly above that is final, anything else
 * scans the column's contiguous scores in full. Both bounds hold in floating point too (rounded
 * addition is monotone), so the result — ties going to the lowest label id — is the full scan's.
 */
function boundedRecursion(ctx: InferenceContext, v: ChainView): void {
  const { n, L } = v;
  const { delta, back } = ctx;
  const plan = planFor(v);
  const { transposed, ceiling, heavy, light, offsets, preds, scores } = plan;
  const H = heavy.length;
  const G = light.length;
  const K = leaders(L);
  const top = ctx.order;
  for (let i = 1; i < n; i++) {
    const prev = (i - 1) * L;
    const cur = i * L;
    localScores(v, i, delta, cur);
    // The K best previous labels, best first (ties: lower id first), and the best of the rest.
    let count = 0;
    let rest = NEG;
    for (let a = 0; a < L; a++) {
      const d = delta[prev + a]!;
      if (count === K) {
        const worst = delta[prev + top[K - 1]!]!;
        if (!(d > worst)) {
          if (d > rest) rest = d;
          continue;
        }
        if (worst > rest) rest = worst;
        count--;
      }
      let j = count++;
      while (j > 0 && delta[prev + top[j - 1]!]! < d) {
        top[j] = top[j - 1]!;
        j--;
      }
      top[j] = a;
    }
    if (delta[prev + top[0]!] === NEG) {
      for (let b = 0; b < L; b++) {
        delta[cur + b] = NEG;
        back[cur + b] = -1;
      }
      continue;
    }
    for (let h = 0; h < H; h++) {
      const b = heavy[h]!;
      const row = b * L;
      const c = ceiling[b]!;
      let best = NEG;
      let arg = -1;
      let stopped = false;
      for (let j = 0; j < count; j++) {
        const a = top[j]!;
        const d = delta[prev + a]!;
        if (d + c < best) {
          stopped = true;
          break;
        }
        const s = d + transposed[row + a]!;
        if (s > best || (s === best && a < arg)) {
          best = s;
          arg = a;
        }
      }
      if (!stopped && !(best > rest + c)) {
        best = NEG;
        arg = -1;
        for (let a = 0; a < L; a++) {
          const s = delta[prev + a]! + transposed[row + a]!;
          if (s > best) {
            best = s;
            arg = a;
          }
        }
      }
      delta[cur + b] = arg < 0 ? NEG : delta[cur + b]! + best;
      back[cur + b] = arg;
    }
    for (let g = 0; g < G; g++) {
      const b = light[g]!;
      let best = NEG;
      let arg = -1;
      const end = offsets[g + 1]!;
      for (let k = offsets[g]!; k < end; k++) {
        const a = preds[k]!;
        const s = delta[prev + a]! + scores[k]!;
        if (s > best) {
          best = s;
          arg = a;
        }
      }
      delta[cur + b] = arg < 0 ? NEG : delta[cur + b]! + best;
      back[cur + b] = arg;
    }
  }
}

function backtrack(ctx: InferenceContext, v: ChainView, out: Int32Array): number {
  const { n, L } = v;
  const { delta, back } = ctx;
  const last = (n - 1) * L;
  let best = NEG;
  let arg = -1;
  for (let t = 0; t < L; t++) {
    const s = delta[last + t]!;
    if (s > best) {
      best = s;
      arg = t;
    }
  }
  if (arg < 0) {
    out.fill(0, 0, n);
    return NEG;
  }
  out[n - 1] = arg;
  for (let i = n - 1; i > 0; i--) {
    arg = back[i * L + arg]!;
    out[i - 1] = arg;
  }
  return best;
}
