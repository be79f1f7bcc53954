/**
 * Naive mean field (MF) for a linear-chain CRF p(y) ∝ exp(score(y)): the baseline the Bregman CRF
 * paper compares against (Corro et al., App. G; Wang et al. 2020). MF approximates p by a product
 * of per-position distributions r_i, updated in parallel (Jacobi):
 *
 *   r_i^k(t) = softmax_t( (local[i,t] + Σ_{t'} r_{i−1}^{k−1}(t') trans(i, t', t)
 *                                    + Σ_{t'} r_{i+1}^{k−1}(t') trans(i+1, t, t')) / τ ),
 *
 * the first sum absent at i = 0, the second at i = n − 1.
 */
import type { ChainGradient, ChainInput } from "../inference/chain-input.js";

const NEG = Number.NEGATIVE_INFINITY;

export interface MeanFieldOptions {
  /** Number of parallel updates k (default 10). */
  iterations?: number;
  /** τ > 0: each update is a softmax of m/τ (default 1). */
  temperature?: number;
  /**
   * What to do with forbidden label pairs (`allowed` zero or a −∞ transition), which mean field
   * cannot represent (default "fail"). "ignore" drops them from the messages, so the marginals and
   * their argmax may then put mass on, or decode to, ill-formed labellings.
   */
  forbidden?: "fail" | "ignore";
  /** Stop once max |r^k − r^{k−1}| < tolerance (default 0: always run every iteration). */
  tolerance?: number;
}

/** The options training reads: early stopping and forbidden pairs do not apply there. */
export interface MeanFieldTrainingOptions {
  iterations?: number;
  temperature?: number;
}

export const MEAN_FIELD_DEFAULTS = {
  iterations: 10,
  temperature: 1,
  forbidden: "fail",
  tolerance: 0,
} as const satisfies Required<MeanFieldOptions>;

export type MeanFieldStatus = "converged" | "iteration-limit" | "unsupported" | "infeasible";

export interface MeanFieldResult {
  status: MeanFieldStatus;
  /** Parallel updates performed. */
  iterations: number;
  /** max |r^k − r^{k−1}| over the last update (0 when none ran). */
  change: number;
  /** Why the input was refused ("unsupported" / "infeasible"). */
  reason?: string;
}

/**
 * Scratch for the mean-field kernels: the iterates r^0..r^k (all of them for training, which
 * backpropagates through them; two for inference) and the backward buffers. Grows on demand and
 * never shrinks, so a reused workspace allocates nothing once it has seen the largest sequence.
 * Not shareable between concurrent calls.
 */
export class MeanFieldWorkspace {
  /** r^0..r^k, n·L each. */
  trajectory: Float64Array = new Float64Array(0);
  /** ∂loss/∂z^k for the current k (z = the softmax argument), n·L. */
  delta: Float64Array = new Float64Array(0);
  /** ∂loss/∂r^{k−1}, n·L. */
  gradR: Float64Array = new Float64Array(0);

  ensureTrajectory(size: number): Float64Array {
    if (this.trajectory.length < size)
      this.trajectory = new Float64Array(grow(this.trajectory.length, size));
    return this.trajectory;
  }

  ensureBackward(size: number): void {
    if (this.delta.length < size) {
      const cap = grow(this.delta.length, size);
      this.delta = new Float64Array(cap);
      this.gradR = new Float64Array(cap);
    }
  }
}

function grow(current: number, needed: number): number {
  // Geometric growth so a stream of slowly lengthening sequences reallocates O(log) times.
  return Math.max(needed, Math.ceil(current * 1.5));
}

function resolveIterations(options: { iterations?: number }): number {
  const k = options.iterations ?? MEAN_FIELD_DEFAULTS.iterations;
  if (!Number.isInteger(k) || k < 0) {
    throw new RangeError(`mean field: iterations must be a non-negative integer, got ${k}`);
  }
  return k;
}

function resolveTemperature(options: { temperature?: number }): number {
  const tau = options.temperature ?? MEAN_FIELD_DEFAULTS.temperature;
  if (!(tau > 0) || !Number.isFinite(tau)) {
    throw new RangeError(`mean field: temperature must be finite and > 0, got ${tau}`);
  }
  return tau;
}

function transitionBlocks(input: ChainInput): number {
  if (input.n <= 1) return 0;
  return input.transitionStride === 0 ? 1 : input.n - 1;
}

/** First local score that is NaN or +∞ (neither a score nor a mask), as a message; null if none. */
function badLocal(input: ChainInput): string | null {
  const { n, L, local, localBase } = input;
  for (let j = 0; j < n * L; j++) {
    const s = local[localBase + j]!;
    if (Number.isNaN(s) || s === Number.POSITIVE_INFINITY) {
      return `local score ${s} at position ${Math.floor(j / L)}, label ${j % L}: scores must be finite or −∞`;
    }
  }
  return null;
}

/** First position whose labels are all forbidden, or −1. */
function emptyPosition(input: ChainInput): number {
  const { n, L, local, localBase } = input;
  for (let i = 0; i < n; i++) {
    let any = false;
    const base = localBase + i * L;
    for (let t = 0; t < L; t++) {
      if (local[base + t]! > NEG) {
        any = true;
        break;
      }
    }
    if (!any) return i;
  }
  return -1;
}

/**
 * Scans the transition block(s): returns a message naming the first NaN/+∞ entry ("bad") or the
 * first forbidden pair ("forbidden"), bad entries first; null if every used pair is finite and
 * allowed.
 */
function transitionIssue(input: ChainInput): { kind: "bad" | "forbidden"; message: string } | null {
  const { L, transition, transitionBase, transitionStride, allowed } = input;
  const blocks = transitionBlocks(input);
  let forbidden: string | null = null;
  for (let blk = 0; blk < blocks; blk++) {
    const base = transitionBase + blk * transitionStride;
    for (let ab = 0; ab < L * L; ab++) {
      const w = transition[base + ab]!;
      const where = `labels ${Math.floor(ab / L)}→${ab % L}${
        transitionStride === 0 ? "" : ` at position ${blk + 1}`
      }`;
      if (Number.isNaN(w) || w === Number.POSITIVE_INFINITY) {
        return {
          kind: "bad",
          message: `transition score ${w} for ${where}: scores must be finite or −∞`,
        };
      }
      if (forbidden === null && (w === NEG || (allowed !== null && allowed[ab] === 0))) {
        forbidden = where;
      }
    }
  }
  if (forbidden === null) return null;
  return {
    kind: "forbidden",
    message: `mean field cannot use forbidden (−∞) transitions: ${forbidden} (Corro et al., App. G); pass forbidden: "ignore" to drop them`,
  };
}

/**
 * Writes the softmax argument z_i(t) = (local[i,t] + m_i(t))/τ of position i into
 * cur[curBase + i·L ..], the messages m read from the iterate in prev[prevBase ..]. With `masked`,
 * forbidden pairs contribute nothing (the "ignore" policy); otherwise every transition is finite,
 * so r = 0 against a finite score is a harmless 0. −∞ local scores stay −∞ (finite messages only).
 */
function logitsRow(
  input: ChainInput,
  i: number,
  prev: Float64Array,
  prevBase: number,
  cur: Float64Array,
  curBase: number,
  masked: boolean,
  invTau: number,
): void {
  const { n, L, local, localBase, transition, transitionBase, transitionStride, allowed } = input;
  const row = curBase + i * L;
  const lb = localBase + i * L;
  for (let t = 0; t < L; t++) cur[row + t] = local[lb + t]!;
  if (i > 0) {
    // Forward message: accumulated row by row of the block so the inner loop is contiguous.
    const wb = transitionBase + (i - 1) * transitionStride;
    const pb = prevBase + (i - 1) * L;
    for (let a = 0; a < L; a++) {
      const p = prev[pb + a]!;
      if (p === 0) continue;
      const wr = wb + a * L;
      if (masked) {
        for (let b = 0; b < L; b++) {
          const w = transition[wr + b]!;
          if (w === NEG || (allowed !== null && allowed[a * L + b] === 0)) continue;
          cur[row + b]! += p * w;
        }
      } else {
        for (let b = 0; b < L; b++) cur[row + b]! += p * transition[wr + b]!;
      }
    }
  }
  if (i < n - 1) {
    const wb = transitionBase + i * transitionStride;
    const pb = prevBase + (i + 1) * L;
    for (let a = 0; a < L; a++) {
      const wr = wb + a * L;
      let s = 0;
      if (masked) {
        for (let b = 0; b < L; b++) {
          const q = prev[pb + b]!;
          const w = transition[wr + b]!;
          if (q === 0 || w === NEG || (allowed !== null && allowed[a * L + b] === 0)) continue;
          s += q * w;
        }
      } else {
        for (let b = 0; b < L; b++) s += prev[pb + b]! * transition[wr + b]!;
      }
      cur[row + a]! += s;
    }
  }
  if (invTau !== 1) for (let t = 0; t < L; t++) cur[row + t]! *= invTau;
}

function rowMax(buf: Float64Array, base: number, L: number): number {
  let m = NEG;
  for (let t = 0; t < L; t++) if (buf[base + t]! > m) m = buf[base + t]!;
  return m;
}

/** Softmax in place given the row max (finite); returns log Σ_t exp(z_t − max) ≥ 0. */
function softmaxRow(buf: Float64Array, base: number, L: number, max: number): number {
  let sum = 0;
  for (let t = 0; t < L; t++) {
    const e = Math.exp(buf[base + t]! - max);
    buf[base + t] = e;
    sum += e;
  }
  const inv = 1 / sum;
  for (let t = 0; t < L; t++) buf[base + t]! *= inv;
  return Math.log(sum);
}

/** r⁰_i = softmax(local[i,·]/τ): the no-coupling marginals, a natural start the paper leaves open. */
function initialise(input: ChainInput, out: Float64Array, base: number, invTau: number): void {
  const { n, L, local, localBase } = input;
  for (let i = 0; i < n; i++) {
    const row = base + i * L;
    const lb = localBase + i * L;
    for (let t = 0; t < L; t++) out[row + t] = local[lb + t]! * invTau;
    softmaxRow(out, row, L, rowMax(out, row, L));
  }
}

/**
 * Mean-field marginals r_i(t) of the chain, written to out[i·L + t] (n·L entries).
 *
 * Initialisation (the paper leaves r⁰ open): r⁰_i = softmax(local[i,·]/τ), the exact marginals
 * without transitions. Then `iterations` parallel updates (see the module comment), each a
 * max-shifted softmax. n = 1 gives softmax(local/τ) directly (status "converged", 0 iterations).
 *
 * −∞ local scores forbid a label: it gets r = 0. Forbidden pairs (`allowed` zero, or a −∞
 * transition) have no mean-field counterpart, because an expectation r·(−∞) is −∞ whenever r > 0:
 * with `forbidden: "fail"` (default) the call returns status "unsupported" with a reason; with
 * "ignore" the pairs are dropped from the messages (the constraint is lost: results may be
 * ill-formed). A position with every label forbidden gives "infeasible"; a NaN or +∞ score
 * "unsupported". In those cases `out` is zero-filled, never NaN.
 *
 * Status "converged" means a positive `tolerance` was met (or n ≤ 1); otherwise "iteration-limit".
 */
export function meanFieldMarginals(
  input: ChainInput,
  options: MeanFieldOptions,
  ws: MeanFieldWorkspace,
  out: Float64Array,
): MeanFieldResult {
  const K = resolveIterations(options);
  const tau = resolveTemperature(options);
  const policy = options.forbidden ?? MEAN_FIELD_DEFAULTS.forbidden;
  const tolerance = options.tolerance ?? MEAN_FIELD_DEFAULTS.tolerance;
  if (!(tolerance >= 0))
    throw new RangeError(`mean field: tolerance must be ≥ 0, got ${tolerance}`);
  const { n, L } = input;
  const size = n * L;
  if (out.length < size)
    throw new RangeError(`mean field: out holds ${out.length} < n·L = ${size}`);

  const refuse = (status: "unsupported" | "infeasible", reason: string): MeanFieldResult => {
    out.fill(0, 0, size);
    return { status, iterations: 0, change: 0, reason };
  };
  const bad = badLocal(input);
  if (bad !== null) return refuse("unsupported", `mean field: ${bad}`);
  const issue = transitionIssue(input);
  if (issue !== null && (issue.kind === "bad" || policy === "fail")) {
    return refuse("unsupported", issue.message);
  }
  const empty = emptyPosition(input);
  if (empty >= 0) {
    return refuse("infeasible", `every label is forbidden (−∞ local score) at position ${empty}`);
  }

  const invTau = 1 / tau;
  const masked = issue !== null;
  const buf = ws.ensureTrajectory(2 * size);
  initialise(input, buf, 0, invTau);
  if (n <= 1) {
    out.set(buf.subarray(0, size));
    return { status: "converged", iterations: 0, change: 0 };
  }
  let prevBase = 0;
  let curBase = size;
  let change = 0;
  let done = 0;
  let status: MeanFieldStatus = "iteration-limit";
  while (done < K) {
    change = 0;
    for (let i = 0; i < n; i++) {
      logitsRow(input, i, buf, prevBase, buf, curBase, masked, invTau);
      const row = curBase + i * L;
      softmaxRow(buf, row, L, rowMax(buf, row, L));
      const prow = prevBase + i * L;
      for (let t = 0; t < L; t++) {
        const d = Math.abs(buf[row + t]! - buf[prow + t]!);
        if (d > change) change = d;
      }
    }
    done++;
    const swap = prevBase;
    prevBase = curBase;
    curBase = swap;
    if (tolerance > 0 && change < tolerance) {
      status = "converged";
      break;
    }
  }
  out.set(buf.subarray(prevBase, prevBase + size));
  return { status, iterations: done, change };
}

/**
 * argmax_t r_i(t) per position into out[0..n) (ties → smallest label). A row without positive
 * mass (the zero-filled output of an "unsupported"/"infeasible" call) decodes to −1.
 */
export function meanFieldDecode(
  marginals: Float64Array,
  n: number,
  L: number,
  out: Int32Array,
): Int32Array {
  for (let i = 0; i < n; i++) {
    let best = -1;
    let bestR = 0;
    const row = i * L;
    for (let t = 0; t < L; t++) {
      const r = marginals[row + t]!;
      if (r > bestR) {
        bestR = r;
        best = t;
      }
    }
    out[i] = best;
  }
  return out;
}

/**
 * Mean-field training loss −Σ_i log r_i^k(gold_i): cross-entropy of the final mean-field
 * marginals after k unrolled updates (our choice, as Wang et al. 2020 train MF; the Bcrf paper does
 * not say). Same initialisation and update as {@link meanFieldMarginals}, no early stopping.
 *
 * With `gradient`, ADDS the exact gradient, backpropagated by hand through r^k, …, r^0 (including
 * r⁰ = softmax(local/τ)): ∂/∂local into rows[i·L + t], Σ_i ∂/∂trans(i) into pairwise[a·L + b], and
 * ∂/∂trans(i) into perPosition[(i−1)·L·L + a·L + b] when that is non-null.
 *
 * Throws RangeError on unknown (−1) or out-of-range gold labels (mean field cannot be trained from
 * partial labels) and on non-finite scores or a zero in `allowed` (training needs every score
 * finite).
 */
export function meanFieldLoss(
  input: ChainInput,
  gold: Int32Array,
  goldBase: number,
  options: MeanFieldTrainingOptions,
  ws: MeanFieldWorkspace,
  gradient: ChainGradient | null,
): number {
  const K = resolveIterations(options);
  const tau = resolveTemperature(options);
  const { n, L, local, localBase, transition, transitionBase, transitionStride } = input;
  const size = n * L;
  for (let i = 0; i < n; i++) {
    const g = gold[goldBase + i]!;
    if (g === -1) {
      throw new RangeError(
        "mean-field training needs fully labelled sequences (the paper: MF cannot be used for partial supervision)",
      );
    }
    if (!(g >= 0 && g < L))
      throw new RangeError(
        `mean-field training: gold label ${g} at position ${i} is not in [0, ${L})`,
      );
  }
  for (let j = 0; j < size; j++) {
    if (!Number.isFinite(local[localBase + j]!)) {
      throw new RangeError(
        `mean-field training requires finite scores: local score ${local[localBase + j]} at position ${Math.floor(j / L)}, label ${j % L}`,
      );
    }
  }
  const issue = transitionIssue(input);
  if (issue !== null)
    throw new RangeError(
      `mean-field training requires finite scores and no forbidden pairs: ${issue.message}`,
    );
  if (n === 0) return 0;

  const invTau = 1 / tau;
  const steps = n <= 1 ? 0 : K;
  const traj = ws.ensureTrajectory((steps + 1) * size);
  let loss = 0;
  // Forward, keeping every iterate. The loss is read off the last logits as (max − z_g) + log Σ,
  // a sum of two non-negative terms, so it is ≥ 0 and finite even when r_g underflows.
  for (let k = 0; k <= steps; k++) {
    const base = k * size;
    for (let i = 0; i < n; i++) {
      const row = base + i * L;
      if (k === 0) {
        const lb = localBase + i * L;
        for (let t = 0; t < L; t++) traj[row + t] = local[lb + t]! * invTau;
      } else {
        logitsRow(input, i, traj, base - size, traj, base, false, invTau);
      }
      const max = rowMax(traj, row, L);
      const zg = traj[row + gold[goldBase + i]!]!;
      const logSum = softmaxRow(traj, row, L, max);
      if (k === steps) loss += max - zg + logSum;
    }
  }
  if (gradient === null) return loss;

  const { rows, pairwise, perPosition } = gradient;
  ws.ensureBackward(size);
  const delta = ws.delta;
  const gradR = ws.gradR;
  const LL = L * L;
  // ∂loss/∂z^K = r^K − onehot(gold).
  const last = steps * size;
  for (let j = 0; j < size; j++) delta[j] = traj[last + j]!;
  for (let i = 0; i < n; i++) delta[i * L + gold[goldBase + i]!]! -= 1;

  for (let k = steps; k >= 1; k--) {
    // delta ← ∂loss/∂m^k = ∂loss/∂z^k / τ; z^k = (local + m^k)/τ, so local gets the same.
    for (let j = 0; j < size; j++) {
      const mu = delta[j]! * invTau;
      delta[j] = mu;
      rows[j]! += mu;
    }
    gradR.fill(0, 0, size);
    const prev = (k - 1) * size;
    for (let i = 1; i < n; i++) {
      // Block W = trans(i) couples (i−1, i): it feeds m_i(b) += r_{i−1}(a)·W[a,b] and
      // m_{i−1}(a) += r_i(b)·W[a,b], both from the previous iterate.
      const wb = transitionBase + (i - 1) * transitionStride;
      const pp = (i - 1) * LL;
      const rA = prev + (i - 1) * L;
      const rB = prev + i * L;
      const muA = (i - 1) * L;
      const muB = i * L;
      for (let a = 0; a < L; a++) {
        const ra = traj[rA + a]!;
        const ma = delta[muA + a]!;
        const wr = wb + a * L;
        let gA = 0;
        for (let b = 0; b < L; b++) {
          const w = transition[wr + b]!;
          const mb = delta[muB + b]!;
          const gw = mb * ra + ma * traj[rB + b]!;
          pairwise[a * L + b]! += gw;
          if (perPosition !== null) perPosition[pp + a * L + b]! += gw;
          gA += w * mb;
          gradR[muB + b]! += w * ma;
        }
        gradR[muA + a]! += gA;
      }
    }
    // Through r^{k−1} = softmax(z^{k−1}): ∂z = r ⊙ (∂r − ⟨r, ∂r⟩).
    for (let i = 0; i < n; i++) {
      const row = prev + i * L;
      const g = i * L;
      let dot = 0;
      for (let t = 0; t < L; t++) dot += traj[row + t]! * gradR[g + t]!;
      for (let t = 0; t < L; t++) delta[g + t] = traj[row + t]! * (gradR[g + t]! - dot);
    }
  }
  // z^0 = local/τ.
  for (let j = 0; j < size; j++) rows[j]! += delta[j]! * invTau;
  return loss;
}
