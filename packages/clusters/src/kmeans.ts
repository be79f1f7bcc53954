import { checkpoints, LagrangeError, seededRandom } from "@lagrange/core";

/** Points as one flat array: `values.length / dims` rows of `dims` numbers. */
export interface Vectors {
  readonly values: Float32Array | Float64Array;
  readonly dims: number;
}

export interface KMeansOptions {
  /** Seeds k-means++ (default 1). */
  readonly seed?: number;
  /** At most this many Lloyd iterations (default 100; they stop when no point changes). */
  readonly iterations?: number;
  /** Then at most this many sweeps of single moves (default 10; they stop when none gains). */
  readonly sweeps?: number;
  readonly signal?: AbortSignal;
  /** Passes done (Lloyd iterations, then sweeps) of at most iterations + sweeps. */
  readonly onProgress?: (done: number, total: number) => void;
}

export interface KMeans {
  /** Each point's cluster, 0 … k − 1. */
  readonly assignment: Int32Array;
  /** k × dims, row-major: each cluster's mean. */
  readonly centroids: Float64Array;
  /** Σ of squared distances of points to their cluster's mean. */
  readonly objective: number;
  /** Lloyd iterations and single-move sweeps run. */
  readonly iterations: number;
  readonly sweeps: number;
  /** The last sweep moved no point: no single move lowers the objective. */
  readonly localOptimum: boolean;
}

/**
 * k-means: k-means++ seeding (Arthur & Vassilvitskii 2007), Lloyd iterations until no point
 * changes cluster, then Hartigan's single moves (a point goes to another cluster when that lowers
 * the objective with both means updated), which Lloyd's fixed points need not satisfy. Lloyd
 * skips the distances Hamerly's bounds (2010) rule out: a point whose distance to its own mean
 * is below both half the gap to that mean's nearest other mean and a lower bound on its distance
 * to every other mean keeps its cluster. A cluster left empty takes the point farthest from its
 * mean. All arrays are allocated once.
 */
export async function kmeans(
  vectors: Vectors,
  k: number,
  options: KMeansOptions = {},
): Promise<KMeans> {
  const { values, dims } = vectors;
  if (!Number.isSafeInteger(dims) || dims < 1 || values.length % dims !== 0) {
    throw new LagrangeError(
      "invalid-problem",
      `dims: expected an integer ≥ 1 dividing the ${values.length} values, got ${dims}`,
    );
  }
  const n = values.length / dims;
  if (!Number.isSafeInteger(k) || k < 1 || k > n) {
    throw new LagrangeError(
      "invalid-problem",
      `k: expected an integer in 1…${n} (the points), got ${k}`,
    );
  }
  const iterations = options.iterations ?? 100;
  const maxSweeps = options.sweeps ?? 10;
  if (!Number.isSafeInteger(iterations) || iterations < 1) {
    throw new LagrangeError(
      "invalid-problem",
      `iterations: expected an integer ≥ 1, got ${iterations}`,
    );
  }
  if (!Number.isSafeInteger(maxSweeps) || maxSweeps < 0) {
    throw new LagrangeError("invalid-problem", `sweeps: expected an integer ≥ 0, got ${maxSweeps}`);
  }
  const pace = checkpoints(options.signal);
  const random = seededRandom(options.seed ?? 1);
  const centroids = new Float64Array(k * dims);
  const sizes = new Int32Array(k);
  const assignment = new Int32Array(n).fill(-1);
  const distance = new Float64Array(n);
  // Hamerly's bounds (distances, not squared): to the own mean from above, to any other from
  // below; half the distance from each mean to its nearest other; each mean's last move.
  const upper = distance;
  const lower = new Float64Array(n);
  const half = new Float64Array(k);
  const drift = new Float64Array(k);
  const previous = new Float64Array(k * dims);

  const squared = (i: number, c: number): number => {
    let s = 0;
    const io = i * dims;
    const co = c * dims;
    for (let t = 0; t < dims; t++) {
      const x = values[io + t]! - centroids[co + t]!;
      s += x * x;
    }
    return s;
  };
  const setCentroid = (c: number, i: number) => {
    for (let t = 0; t < dims; t++) centroids[c * dims + t] = values[i * dims + t]!;
  };

  // k-means++: each next seed drawn with probability ∝ squared distance to the nearest one.
  setCentroid(0, Math.floor(random() * n));
  for (let i = 0; i < n; i++) distance[i] = squared(i, 0);
  for (let c = 1; c < k; c++) {
    let total = 0;
    for (let i = 0; i < n; i++) total += distance[i]!;
    let pick = n - 1;
    if (total > 0) {
      let r = random() * total;
      for (let i = 0; i < n; i++) {
        r -= distance[i]!;
        if (r < 0) {
          pick = i;
          break;
        }
      }
    } else {
      pick = Math.floor(random() * n);
    }
    setCentroid(c, pick);
    for (let i = 0; i < n; i++) distance[i] = Math.min(distance[i]!, squared(i, c));
    if (pace.due()) await pace.pause();
  }

  const recompute = () => {
    centroids.fill(0);
    sizes.fill(0);
    for (let i = 0; i < n; i++) {
      const c = assignment[i]!;
      sizes[c]!++;
      for (let t = 0; t < dims; t++) centroids[c * dims + t]! += values[i * dims + t]!;
    }
    for (let c = 0; c < k; c++) {
      if (sizes[c] === 0) continue;
      const inv = 1 / sizes[c]!;
      for (let t = 0; t < dims; t++) centroids[c * dims + t]! *= inv;
    }
  };
  // An empty cluster takes the point farthest from its own mean (from a cluster of ≥ 2).
  const fillEmpty = () => {
    for (let c = 0; c < k; c++) {
      if (sizes[c] !== 0) continue;
      let far = -1;
      for (let i = 0; i < n; i++) {
        if (sizes[assignment[i]!]! >= 2 && (far < 0 || upper[i]! > upper[far]!)) far = i;
      }
      const from = assignment[far]!;
      const m = sizes[from]!;
      for (let t = 0; t < dims; t++) {
        centroids[from * dims + t] =
          (centroids[from * dims + t]! * m - values[far * dims + t]!) / (m - 1);
      }
      sizes[from]!--;
      assignment[far] = c;
      sizes[c] = 1;
      upper[far] = 0;
      lower[far] = 0;
      setCentroid(c, far);
    }
  };

  const total = iterations + maxSweeps;
  // Every mean's distance: the nearest and second nearest set the point's bounds.
  const scan = (i: number): void => {
    let best = 0;
    let first = Number.POSITIVE_INFINITY;
    let second = Number.POSITIVE_INFINITY;
    for (let c = 0; c < k; c++) {
      const s = squared(i, c);
      if (s < first) {
        second = first;
        first = s;
        best = c;
      } else if (s < second) {
        second = s;
      }
    }
    assignment[i] = best;
    upper[i] = Math.sqrt(first);
    lower[i] = Math.sqrt(second);
  };
  let lloyd = 0;
  while (lloyd < iterations) {
    for (let c = 0; c < k; c++) {
      let nearest = Number.POSITIVE_INFINITY;
      for (let e = 0; e < k; e++) {
        if (e === c) continue;
        let s = 0;
        for (let t = 0; t < dims; t++)
          s += (centroids[c * dims + t]! - centroids[e * dims + t]!) ** 2;
        if (s < nearest) nearest = s;
      }
      half[c] = Math.sqrt(nearest) / 2;
    }
    let changed = 0;
    for (let i = 0; i < n; i++) {
      if ((i & 255) === 0 && pace.due()) await pace.pause();
      const a = assignment[i]!;
      if (a >= 0) {
        const bound = Math.max(half[a]!, lower[i]!);
        if (upper[i]! <= bound) continue;
        upper[i] = Math.sqrt(squared(i, a));
        if (upper[i]! <= bound) continue;
      }
      scan(i);
      if (assignment[i] !== a) changed++;
    }
    previous.set(centroids);
    recompute();
    fillEmpty();
    let most = 0;
    let mostAt = -1;
    let next = 0;
    for (let c = 0; c < k; c++) {
      let s = 0;
      for (let t = 0; t < dims; t++) s += (centroids[c * dims + t]! - previous[c * dims + t]!) ** 2;
      drift[c] = Math.sqrt(s);
      if (drift[c]! > most) {
        next = most;
        most = drift[c]!;
        mostAt = c;
      } else if (drift[c]! > next) {
        next = drift[c]!;
      }
    }
    for (let i = 0; i < n; i++) {
      const a = assignment[i]!;
      upper[i]! += drift[a]!;
      lower[i]! -= a === mostAt ? next : most;
    }
    lloyd++;
    options.onProgress?.(lloyd, total);
    if (changed === 0) break;
  }

  // Hartigan: moving x from a (size m_a) to b (size m_b) changes the objective by
  // m_b/(m_b+1)·|x−μ_b|² − m_a/(m_a−1)·|x−μ_a|²; a cluster of one keeps its point.
  let sweeps = 0;
  let localOptimum = false;
  while (sweeps < maxSweeps) {
    let moved = 0;
    for (let i = 0; i < n; i++) {
      if ((i & 255) === 0 && pace.due()) await pace.pause();
      const a = assignment[i]!;
      const ma = sizes[a]!;
      if (ma < 2) continue;
      const removal = (ma / (ma - 1)) * squared(i, a);
      let best = -1;
      let bestCost = removal;
      for (let c = 0; c < k; c++) {
        if (c === a) continue;
        const mc = sizes[c]!;
        const cost = (mc / (mc + 1)) * squared(i, c);
        if (cost < bestCost) {
          bestCost = cost;
          best = c;
        }
      }
      // Moves that gain less than rounding would cycle.
      if (best < 0 || bestCost >= removal - 1e-12 * (removal + 1e-300)) continue;
      const mb = sizes[best]!;
      for (let t = 0; t < dims; t++) {
        const x = values[i * dims + t]!;
        centroids[a * dims + t] = (centroids[a * dims + t]! * ma - x) / (ma - 1);
        centroids[best * dims + t] = (centroids[best * dims + t]! * mb + x) / (mb + 1);
      }
      sizes[a]!--;
      sizes[best]!++;
      assignment[i] = best;
      moved++;
    }
    sweeps++;
    recompute();
    options.onProgress?.(lloyd + sweeps, total);
    if (moved === 0) {
      localOptimum = true;
      break;
    }
  }
  let objective = 0;
  for (let i = 0; i < n; i++) objective += squared(i, assignment[i]!);
  return { assignment, centroids, objective, iterations: lloyd, sweeps, localOptimum };
}
