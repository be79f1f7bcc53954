import type { BigramCorpus } from "./corpus.js";

/**
 * Two losses within this much (in count·bit units, relative to the smallest loss when that is
 * above 1) are a tie, broken by the cluster ids: the pair whose lower id is smallest, then whose
 * higher id is smallest. Losses computed along different paths (incrementally here, from scratch
 * in a reference) differ by rounding only, far below this.
 */
export const TIE_TOLERANCE = 1e-9;

/** Merges between exact recomputations of the q2 row and column sums (against drift). */
const RESUM_EVERY = 128;

/**
 * A merge with the word just added derives the merged cluster's losses from the other cluster's
 * (O(the word's neighbours) each), except every this many merges, when they are computed from
 * the tables (O(C) each), so that rounding cannot build up along a cluster's merges.
 */
const FRESH_EVERY = 64;

/** A mutual-information term c·(log2 c + base), base = log2(T²/(T−1)) − lg of the two sizes. */
function term(c: number, base: number): number {
  return c > 0 ? c * (Math.log2(c) + base) : 0;
}

/**
 * Liang's windowed Brown clustering (wcluster's algorithm) over a {@link BigramCorpus}: slots hold
 * clusters; every table is a flat slots × slots Float64Array allocated once.
 *
 * Units: bigram counts c (not probabilities), and mutual information in count·bits — wcluster's
 * q2 = p·log2(p / (p1·p2)) with p = c / (T−1), p1 = n / T, times T−1 — so the losses are sums
 * of count terms (merged counts and zero tests exact); dividing by T−1 gives wcluster's bits.
 *
 * Cluster ids: word r (rank r) is cluster r; the k-th merge makes cluster N + k.
 */
export class BrownEngine {
  /** Slots: C + 2 (C + 1 clusters at most, and one to merge into). */
  readonly n: number;
  readonly N: number;
  /** p2[x·n + y]: bigrams from cluster x to cluster y; p2t its transpose. */
  readonly p2: Float64Array;
  readonly p2t: Float64Array;
  /** q2[x·n + y] = q(p2[x·n + y], n1[x], n1[y]); q2t its transpose. */
  readonly q2: Float64Array;
  readonly q2t: Float64Array;
  /** loss[v·n + w] (v < w): mutual information lost if v and w merged. */
  readonly loss: Float64Array;
  /** Cluster sizes (token counts) and their log2. */
  readonly n1: Float64Array;
  readonly lg1: Float64Array;
  /** s1[x]: the mutual information terms that involve x (x with itself once). */
  readonly s1: Float64Array;
  /** Per-slot scratch: what each slot gains with a new word, or loses in a merge. */
  private readonly delta: Float64Array;
  /**
   * Per slot, sums over the active slots of its row and column of p2 and q2: with them a new
   * word's fresh losses cost O(its neighbours) rather than O(C). The count sums are exact; the
   * q2 sums are recomputed every {@link RESUM_EVERY} merges.
   */
  private readonly rowP: Float64Array;
  private readonly colP: Float64Array;
  private readonly rowQ: Float64Array;
  private readonly colQ: Float64Array;
  /** The new word's neighbouring slots (bigrams either way), and a marker per slot. */
  private readonly support: Int32Array;
  private supportSize = 0;
  /** The slot of the word added last, until the next merge (−1: none). */
  private newSlot = -1;
  private readonly mark: Int32Array;
  private stamp = 0;
  /** Cluster id per slot, −1 when free. */
  readonly slotId: Int32Array;
  /** Occupied slots, ascending; the first `size` entries. */
  readonly active: Int32Array;
  size = 0;
  private readonly free: Int32Array;
  private freeCount = 0;
  /** A union-find over words (ranks); each cluster's root word knows its slot. */
  private readonly parent: Int32Array;
  private readonly rootSlot: Int32Array;
  private readonly slotRoot: Int32Array;
  /** The merges in order: [2k] the lower id, [2k+1] the higher (id N + k made by merge k). */
  readonly merges: Int32Array;
  mergeCount = 0;
  /** Mutual information of the current clustering (count·bits). */
  mutualInformation = 0;
  /** log2(T² / (T−1)): the constant of every q term. */
  private readonly lk: number;
  /** Pairs whose loss was within tolerance of the running minimum (pair index v·n + w). */
  private readonly candidates: Int32Array;

  constructor(
    readonly corpus: BigramCorpus,
    clusters: number,
  ) {
    const C = Math.max(1, Math.min(clusters, corpus.words.length));
    const n = C + 2;
    this.n = n;
    this.N = corpus.words.length;
    this.p2 = new Float64Array(n * n);
    this.p2t = new Float64Array(n * n);
    this.q2 = new Float64Array(n * n);
    this.q2t = new Float64Array(n * n);
    this.loss = new Float64Array(n * n);
    this.n1 = new Float64Array(n);
    this.lg1 = new Float64Array(n);
    this.s1 = new Float64Array(n);
    this.delta = new Float64Array(n);
    this.rowP = new Float64Array(n);
    this.colP = new Float64Array(n);
    this.rowQ = new Float64Array(n);
    this.colQ = new Float64Array(n);
    this.support = new Int32Array(n);
    this.mark = new Int32Array(n);
    this.slotId = new Int32Array(n).fill(-1);
    this.active = new Int32Array(n);
    this.free = new Int32Array(n);
    for (let s = n - 1; s >= 0; s--) this.free[this.freeCount++] = s;
    this.parent = new Int32Array(this.N);
    this.rootSlot = new Int32Array(this.N).fill(-1);
    this.slotRoot = new Int32Array(n).fill(-1);
    this.merges = new Int32Array(2 * Math.max(0, this.N - 1));
    const T = corpus.tokens;
    this.lk = T > 1 ? 2 * Math.log2(T) - Math.log2(T - 1) : 0;
    this.candidates = new Int32Array(n * n);
  }

  /** The slot of word r's cluster (r must have been added). */
  slotOfWord(r: number): number {
    const parent = this.parent;
    let x = r;
    while (parent[x] !== x) {
      const up = parent[parent[x]!]!;
      parent[x] = up;
      x = up;
    }
    return this.rootSlot[x]!;
  }

  /** The loss of merging the clusters in slots v and w. */
  lossOf(v: number, w: number): number {
    return v < w ? this.loss[v * this.n + w]! : this.loss[w * this.n + v]!;
  }

  private takeSlot(): number {
    const s = this.free[--this.freeCount]!;
    const active = this.active;
    let i = this.size++;
    while (i > 0 && active[i - 1]! > s) {
      active[i] = active[i - 1]!;
      i--;
    }
    active[i] = s;
    return s;
  }

  private releaseSlot(s: number): void {
    const active = this.active;
    let i = 0;
    while (active[i] !== s) i++;
    for (; i + 1 < this.size; i++) active[i] = active[i + 1]!;
    this.size--;
    this.slotId[s] = -1;
    this.free[this.freeCount++] = s;
  }

  /** Adds word r (the next by rank) as a cluster of its own and updates every loss. O(C²). */
  addWord(r: number): void {
    const { n, p2, p2t, q2, q2t, corpus, active, lg1, s1, delta: e } = this;
    const s = this.takeSlot();
    this.slotId[s] = r;
    this.parent[r] = r;
    this.rootSlot[r] = s;
    this.slotRoot[s] = r;
    this.n1[s] = corpus.counts[r]!;
    lg1[s] = Math.log2(corpus.counts[r]!);
    const k = this.size;
    for (let i = 0; i < k; i++) {
      const x = active[i]!;
      p2[s * n + x] = p2[x * n + s] = p2t[s * n + x] = p2t[x * n + s] = 0;
    }
    const mark = this.mark;
    const stamp = ++this.stamp;
    let supportSize = 0;
    for (let j = corpus.start[r]!; j < corpus.start[r + 1]!; j++) {
      const key = corpus.neighbour[j]!;
      const x = key >> 1 === r ? s : this.slotOfWord(key >> 1);
      const c = corpus.pairCount[j]!;
      if (x !== s && mark[x] !== stamp) {
        mark[x] = stamp;
        this.support[supportSize++] = x;
      }
      if ((key & 1) === 0) {
        p2[s * n + x]! += c;
        p2t[x * n + s]! += c;
      } else {
        p2[x * n + s]! += c;
        p2t[s * n + x]! += c;
      }
    }
    this.supportSize = supportSize;
    this.newSlot = s;
    const lgs = lg1[s]!;
    const lk = this.lk;
    const { rowP, colP, rowQ, colQ } = this;
    let gained = 0;
    let rp = 0;
    let cp = 0;
    let rq = 0;
    let cq = 0;
    for (let i = 0; i < k; i++) {
      const x = active[i]!;
      const out = p2[s * n + x]!;
      const into = p2[x * n + s]!;
      const qOut = out > 0 ? out * (Math.log2(out) + lk - lgs - lg1[x]!) : 0;
      const qIn = into > 0 ? into * (Math.log2(into) + lk - lgs - lg1[x]!) : 0;
      q2[s * n + x] = q2t[x * n + s] = qOut;
      q2[x * n + s] = q2t[s * n + x] = qIn;
      rp += out;
      cp += into;
      rq += qOut;
      cq += qIn;
      if (x === s) {
        gained += qOut;
        e[x] = 0;
      } else {
        gained += qOut + qIn;
        e[x] = qOut + qIn;
        s1[x]! += qOut + qIn;
        rowP[x]! += into;
        colP[x]! += out;
        rowQ[x]! += qIn;
        colQ[x]! += qOut;
      }
    }
    rowP[s] = rp;
    colP[s] = cp;
    rowQ[s] = rq;
    colQ[s] = cq;
    s1[s] = gained;
    this.mutualInformation += gained;
    this.updateAfterAdd(s);
    for (let i = 0; i < k; i++) {
      const w = active[i]!;
      if (w !== s) this.setLoss(s, w, this.freshLossOfNew(s, w));
    }
  }

  /** Every pair without s gains s's terms: loss += e[v] + e[w] − q((v∪w)↔s). */
  private updateAfterAdd(s: number): void {
    const { n, p2, p2t, loss, active, n1, delta: e } = this;
    const lgs = this.lg1[s]!;
    const lk = this.lk;
    const k = this.size;
    const inRow = s * n; // p2t[s·n + x] = p2[x][s]; p2[s·n + x] = p2[s][x]
    for (let i = 0; i < k; i++) {
      const v = active[i]!;
      if (v === s) continue;
      const av = p2t[inRow + v]!;
      const cv = p2[inRow + v]!;
      const ev = e[v]!;
      const nv = n1[v]!;
      const row = v * n;
      for (let j = i + 1; j < k; j++) {
        const w = active[j]!;
        if (w === s) continue;
        const a = av + p2t[inRow + w]!;
        const c = cv + p2[inRow + w]!;
        let d = ev + e[w]!;
        if (a + c > 0) {
          const base = lk - Math.log2(nv + n1[w]!) - lgs;
          if (a > 0) d -= a * (Math.log2(a) + base);
          if (c > 0) d -= c * (Math.log2(c) + base);
        }
        loss[row + w]! += d;
      }
    }
  }

  private setLoss(v: number, w: number, l: number): void {
    if (v < w) this.loss[v * this.n + w] = l;
    else this.loss[w * this.n + v] = l;
  }

  /**
   * {@link freshLoss} for the word just added in slot s, in O(its neighbouring slots): for every
   * x that s has no bigram with, the merged cluster's term with x is w's term rescaled to the
   * merged size (q2[w][x] + p2[w][x]·(lg w − lg P)), summed at once from w's row and column sums;
   * only s's neighbours are computed term by term.
   */
  private freshLossOfNew(s: number, w: number): number {
    const { n, p2, p2t, q2, q2t, lg1, support } = this;
    const P = this.n1[s]! + this.n1[w]!;
    const lgP = Math.log2(P);
    const ds = lg1[s]! - lgP;
    const dw = lg1[w]! - lgP;
    const base = this.lk - lgP;
    const rs = s * n;
    const rw = w * n;
    const pww = p2[rw + w]!;
    const qww = q2[rw + w]!;
    let gained =
      this.rowQ[w]! -
      qww -
      q2[rw + s]! +
      dw * (this.rowP[w]! - pww - p2[rw + s]!) +
      (this.colQ[w]! - qww - q2t[rw + s]!) +
      dw * (this.colP[w]! - pww - p2t[rw + s]!);
    for (let i = 0; i < this.supportSize; i++) {
      const x = support[i]!;
      if (x === w) continue;
      const os = p2[rs + x]!;
      if (os !== 0) {
        const ow = p2[rw + x]!;
        if (ow !== 0) {
          const c = os + ow;
          gained += c * (Math.log2(c) + base - lg1[x]!) - q2[rw + x]! - ow * dw;
        } else gained += q2[rs + x]! + os * ds;
      }
      const is = p2t[rs + x]!;
      if (is !== 0) {
        const iw = p2t[rw + x]!;
        if (iw !== 0) {
          const c = is + iw;
          gained += c * (Math.log2(c) + base - lg1[x]!) - q2t[rw + x]! - iw * dw;
        } else gained += q2t[rs + x]! + is * ds;
      }
    }
    const self = p2[rs + s]! + p2[rs + w]! + p2[rw + s]! + pww;
    if (self > 0) gained += self * (Math.log2(self) + this.lk - 2 * lgP);
    const lost = this.s1[s]! + this.s1[w]! - q2[rs + w]! - q2[rw + s]!;
    return lost - gained;
  }

  /** The loss of merging v and w from the tables, O(C): wcluster's compute_L2. */
  freshLoss(v: number, w: number): number {
    const { n, p2, p2t, q2, q2t, active, lg1, s1 } = this;
    const P = this.n1[v]! + this.n1[w]!;
    const lgP = Math.log2(P);
    const dv = lg1[v]! - lgP;
    const dw = lg1[w]! - lgP;
    const base = this.lk - lgP;
    const rv = v * n;
    const rw = w * n;
    let gained = 0;
    const k = this.size;
    for (let i = 0; i < k; i++) {
      const x = active[i]!;
      if (x === v || x === w) continue;
      // (v∪w) → x: when one side is 0, the term is the other's q2 rescaled (no log).
      const ov = p2[rv + x]!;
      const ow = p2[rw + x]!;
      if (ov !== 0) {
        if (ow !== 0) {
          const c = ov + ow;
          gained += c * (Math.log2(c) + base - lg1[x]!);
        } else gained += q2[rv + x]! + ov * dv;
      } else if (ow !== 0) gained += q2[rw + x]! + ow * dw;
      // x → (v∪w)
      const iv = p2t[rv + x]!;
      const iw = p2t[rw + x]!;
      if (iv !== 0) {
        if (iw !== 0) {
          const c = iv + iw;
          gained += c * (Math.log2(c) + base - lg1[x]!);
        } else gained += q2t[rv + x]! + iv * dv;
      } else if (iw !== 0) gained += q2t[rw + x]! + iw * dw;
    }
    const self = p2[rv + v]! + p2[rv + w]! + p2[rw + v]! + p2[rw + w]!;
    if (self > 0) gained += self * (Math.log2(self) + this.lk - 2 * lgP);
    const lost = s1[v]! + s1[w]! - q2[rv + w]! - q2[rw + v]!;
    return lost - gained;
  }

  /** The q2 row and column sums from scratch, O(C²). */
  private resumQ(): void {
    const { n, q2, q2t, active, rowQ, colQ } = this;
    const k = this.size;
    for (let i = 0; i < k; i++) {
      const x = active[i]!;
      let rq = 0;
      let cq = 0;
      for (let j = 0; j < k; j++) {
        rq += q2[x * n + active[j]!]!;
        cq += q2t[x * n + active[j]!]!;
      }
      rowQ[x] = rq;
      colQ[x] = cq;
    }
  }

  /**
   * The pair of slots to merge: the least loss; losses within {@link TIE_TOLERANCE} of it are
   * ties, broken by cluster ids (lower id first, then higher). Returns the pair's index
   * v·n + w (slots v < w), or −1 with fewer than two clusters.
   */
  bestPair(): number {
    const { n, loss, active, slotId, candidates } = this;
    const k = this.size;
    if (k < 2) return -1;
    let min = Number.POSITIVE_INFINITY;
    let threshold = Number.POSITIVE_INFINITY;
    let count = 0;
    for (let i = 0; i < k; i++) {
      const row = active[i]! * n;
      for (let j = i + 1; j < k; j++) {
        const at = row + active[j]!;
        const l = loss[at]!;
        if (l <= threshold) {
          if (l < min) {
            min = l;
            threshold = l + TIE_TOLERANCE * Math.max(1, Math.abs(l));
          }
          candidates[count++] = at;
        }
      }
    }
    let best = -1;
    let bestLo = 0;
    let bestHi = 0;
    for (let c = 0; c < count; c++) {
      const at = candidates[c]!;
      if (loss[at]! > threshold) continue;
      const a = slotId[(at / n) | 0]!;
      const b = slotId[at % n]!;
      const lo = Math.min(a, b);
      const hi = Math.max(a, b);
      if (best < 0 || lo < bestLo || (lo === bestLo && hi < bestHi)) {
        best = at;
        bestLo = lo;
        bestHi = hi;
      }
    }
    return best;
  }

  /** Merges the pair {@link bestPair} returned (its index v·n + w). */
  mergePair(at: number): void {
    this.merge((at / this.n) | 0, at % this.n);
  }

  /** Merges the clusters in slots s and t into a new cluster and updates every loss. O(C²). */
  merge(s: number, t: number): void {
    const { n, p2, p2t, q2, q2t, active, lg1, s1, n1, slotId, delta: D } = this;
    const a = slotId[s]!;
    const b = slotId[t]!;
    const id = this.N + this.mergeCount;
    this.merges[2 * this.mergeCount] = Math.min(a, b);
    this.merges[2 * this.mergeCount + 1] = Math.max(a, b);
    this.mergeCount++;
    this.mutualInformation -= this.lossOf(s, t);
    // u takes the free slot before s and t leave the active list (their rows stay readable
    // until the next word or merge reuses their slots).
    const u = this.takeSlot();
    this.releaseSlot(s);
    this.releaseSlot(t);
    slotId[u] = id;
    const rootS = this.slotRoot[s]!;
    const rootT = this.slotRoot[t]!;
    this.parent[rootT] = rootS;
    this.rootSlot[rootS] = u;
    this.slotRoot[u] = rootS;
    n1[u] = n1[s]! + n1[t]!;
    const lgu = Math.log2(n1[u]!);
    lg1[u] = lgu;
    const lk = this.lk;
    const rs = s * n;
    const rt = t * n;
    const ru = u * n;
    const k = this.size;
    const { rowP, colP, rowQ, colQ } = this;
    let sumOut = 0;
    let sumIn = 0;
    for (let i = 0; i < k; i++) {
      const x = active[i]!;
      if (x === u) continue;
      const out = p2[rs + x]! + p2[rt + x]!;
      const into = p2t[rs + x]! + p2t[rt + x]!;
      p2[ru + x] = p2t[x * n + u] = out;
      p2[x * n + u] = p2t[ru + x] = into;
      const qOut = out > 0 ? out * (Math.log2(out) + lk - lgu - lg1[x]!) : 0;
      const qIn = into > 0 ? into * (Math.log2(into) + lk - lgu - lg1[x]!) : 0;
      q2[ru + x] = q2t[x * n + u] = qOut;
      q2[x * n + u] = q2t[ru + x] = qIn;
      const d = q2[rs + x]! + q2t[rs + x]! + q2[rt + x]! + q2t[rt + x]! - qOut - qIn;
      D[x] = d;
      s1[x]! -= d;
      rowQ[x]! += qIn - q2t[rs + x]! - q2t[rt + x]!;
      colQ[x]! += qOut - q2[rs + x]! - q2[rt + x]!;
      sumOut += qOut;
      sumIn += qIn;
    }
    const self = p2[rs + s]! + p2[rs + t]! + p2[rt + s]! + p2[rt + t]!;
    p2[ru + u] = p2t[ru + u] = self;
    const qSelf = self > 0 ? self * (Math.log2(self) + lk - 2 * lgu) : 0;
    q2[ru + u] = q2t[ru + u] = qSelf;
    s1[u] = sumOut + sumIn + qSelf;
    rowP[u] = rowP[s]! + rowP[t]!;
    colP[u] = colP[s]! + colP[t]!;
    rowQ[u] = sumOut + qSelf;
    colQ[u] = sumIn + qSelf;
    if (this.mergeCount % RESUM_EVERY === 0) this.resumQ();
    this.updateAfterMerge(s, t, u);
    const added = this.newSlot;
    this.newSlot = -1;
    const derive = (added === s || added === t) && this.mergeCount % FRESH_EVERY !== 0;
    for (let i = 0; i < k; i++) {
      const w = active[i]!;
      if (w === u) continue;
      const l = derive
        ? this.lossAfterAdding(added, added === s ? t : s, u, w)
        : this.freshLoss(u, w);
      this.setLoss(u, w, l);
    }
  }

  /**
   * The loss of merging w with u = a ∪ b, where a is the word just added (its neighbouring slots
   * in `support`), from the loss of merging w with b before (still in the table, as are the rows
   * of a and b): the mutual information gained by b ∪ w, less its terms with a and with itself,
   * every other term rescaled from b ∪ w's size to u ∪ w's, and a's neighbours' terms recomputed.
   * O(a's neighbours). Called after {@link merge} has updated s1 (s1[w] before it: s1[w] + D[w]).
   */
  private lossAfterAdding(a: number, b: number, u: number, w: number): number {
    const { n, p2, p2t, q2, lg1, n1, s1, support, rowP, colP } = this;
    const lk = this.lk;
    const ra = a * n;
    const rb = b * n;
    const rw = w * n;
    const ru = u * n;
    const lgP = Math.log2(n1[b]! + n1[w]!);
    const lgQ = Math.log2(n1[u]! + n1[w]!);
    // What b ∪ w gained before this merge, from its loss.
    const s1w = s1[w]! + this.delta[w]!;
    let gained = s1[b]! + s1w - q2[rb + w]! - q2[rw + b]! - this.lossOf(b, w);
    // Less its terms with a and with itself.
    const pba = p2[rb + a]!;
    const pwa = p2[rw + a]!;
    const pab = p2[ra + b]!;
    const paw = p2[ra + w]!;
    const pbb = p2[rb + b]!;
    const pbw = p2[rb + w]!;
    const pwb = p2[rw + b]!;
    const pww = p2[rw + w]!;
    gained -= term(pba + pwa, lk - lgP - lg1[a]!) + term(pab + paw, lk - lgP - lg1[a]!);
    gained -= term(pbb + pbw + pwb + pww, lk - 2 * lgP);
    // Every other term from size b ∪ w to u ∪ w: q(c, P, n) = f(c) + c·(lk − lg P − lg n).
    const others =
      rowP[b]! -
      pba -
      pbb -
      pbw +
      (rowP[w]! - pwa - pwb - pww) +
      (colP[b]! - pab - pbb - pwb) +
      (colP[w]! - paw - pbw - pww);
    gained += (lgP - lgQ) * others;
    // a's neighbours: the terms with a's bigrams added.
    for (let i = 0; i < this.supportSize; i++) {
      const x = support[i]!;
      if (x === b || x === w) continue;
      const base = lk - lgQ - lg1[x]!;
      const out = p2[rb + x]! + p2[rw + x]!;
      const into = p2t[rb + x]! + p2t[rw + x]!;
      gained += term(out + p2[ra + x]!, base) - term(out, base);
      gained += term(into + p2t[ra + x]!, base) - term(into, base);
    }
    gained += term(p2[ru + u]! + p2[ru + w]! + p2[rw + u]! + pww, lk - 2 * lgQ);
    return s1[u]! + s1[w]! - q2[ru + w]! - q2[rw + u]! - gained;
  }

  /**
   * Every pair without u: drop the terms with s and t, add those with u (wcluster's
   * compute_L2_using_old). In f(x) = x·log2 x terms the hypothetical cluster's size cancels:
   * Δ = −D[v] − D[w] + [f(a)+f(b)−f(a+b)] + [f(c)+f(d)−f(c+d)] + (a+c)(lg u − lg s) + (b+d)(lg u − lg t),
   * a, b the bigrams from v∪w into s, t and c, d those out of s, t into v∪w.
   */
  private updateAfterMerge(s: number, t: number, u: number): void {
    const { n, p2, p2t, loss, active, lg1, delta: D } = this;
    const lgu = lg1[u]!;
    const ks = lgu - lg1[s]!;
    const kt = lgu - lg1[t]!;
    const rs = s * n;
    const rt = t * n;
    const k = this.size;
    for (let i = 0; i < k; i++) {
      const v = active[i]!;
      if (v === u) continue;
      const av = p2t[rs + v]!;
      const bv = p2t[rt + v]!;
      const cv = p2[rs + v]!;
      const dv = p2[rt + v]!;
      const Dv = D[v]!;
      const row = v * n;
      for (let j = i + 1; j < k; j++) {
        const w = active[j]!;
        if (w === u) continue;
        const a = av + p2t[rs + w]!;
        const b = bv + p2t[rt + w]!;
        const c = cv + p2[rs + w]!;
        const d = dv + p2[rt + w]!;
        let x = (a + c) * ks + (b + d) * kt - Dv - D[w]!;
        if (a !== 0 && b !== 0) {
          const ab = a + b;
          x += a * Math.log2(a) + b * Math.log2(b) - ab * Math.log2(ab);
        }
        if (c !== 0 && d !== 0) {
          const cd = c + d;
          x += c * Math.log2(c) + d * Math.log2(d) - cd * Math.log2(cd);
        }
        loss[row + w]! += x;
      }
    }
  }
}
