/**
 * The three L×L products of forward-backward as a tiny WebAssembly module with 128-bit SIMD
 * (two f64 lanes, no bounds checks), written with core's assembler (`@lagrange/core/wasm`). Used when
 * the runtime supports WebAssembly SIMD (Node ≥ 16, every current browser); the JavaScript
 * kernels remain the fallback and the reference the tests compare against.
 *
 * All pointers are byte offsets into the module's memory, which the InferenceContext owns.
 *   axpyRows(m, x, out, L):             out[c] = Σ_r x[r] · m[r·L + c]          (c < L)
 *   outerSum(left, right, rows, L, w, out): out[a·L+b] = w[a·L+b] · Σ_i left[i·L+a] · right[i·L+b]
 * and the two sparse feature sweeps of the encoder's batch path (binary attributes), where the
 * corpus, a packed copy of the state weights and the gradient accumulator live in the memory:
 *   scoreSweep(offsets, ranges, packedWeights, unary, from, to, L):
 *       unary[(j−from)·L + label] = Σ weight over the features of the attribute occurrences of
 *       tokens j; occurrence k's features are the 16-byte records [ranges[2k], ranges[2k+1]) of
 *       packedWeights (float64 weight, int32 label): the attribute's block resolved once when
 *       the corpus is copied, and label and weight in one cache line
 *   gradientSweep(offsets, ranges, packedGradient, residual, from, to, L, scale):
 *       value += scale · residual[(j−from)·L + label] over the same records of packedGradient
 * (offsets and ranges are int32 arrays; the sweeps are scalar: their cost is the scattered
 * reads of rare attributes' features, which the packing halves.)
 * The forward-backward recursions, whole chains per call:
 *   forwardScaled, backwardScaled, marginalsScaled, shiftRows (see their bodies)
 *   expPairs(ptr, pairs): x ← exp(x) in place for 2·pairs doubles x ≤ 0 (or −∞), two lanes at a
 *       time: x = k·ln 2 + r with |r| ≤ ln 2 / 2, a degree-13 Taylor polynomial in r (Estrin) (relative
 *       error ≤ 2.3e-16 there), times 2^k built from the exponent bits; x < −708 gives exactly 0
 *       (−∞ included), i.e. values below 3.3e-308 relative to the row's maximum are dropped, as
 *       the scaled forward-backward drops them anyway. V8's Math.exp costs ≈ 16 ns here.
 */
import {
  advance,
  assembleModule,
  compiledOnce,
  countUp,
  F64,
  type FunctionDefinition,
  f64At,
  forLoop,
  I32,
  instantiateKernel,
  int32At,
  type KernelMemory,
  laneSum,
  localSum,
  op,
  positiveFinite,
  shiftLeft,
  splatF64,
  splatI64,
  V128,
  zeroBytes,
} from "@lagrange/core/wasm";

/** `for (c = 0; c + 16 ≤ rowBytes; c += 16) body`: a row two lanes at a time (local limit scratch). */
function pairs(c: number, limit: number, rowBytes: number, body: number[]): number[] {
  return [
    ...op.i32(0),
    ...op.set(c),
    ...op.get(rowBytes),
    ...op.i32(15),
    ...op.sub,
    ...op.set(limit),
    ...forLoop(c, limit, 16, body),
  ];
}

/** `if (c < rowBytes) body`: the odd last element of a row after `pairs`. */
function oddLast(c: number, rowBytes: number, body: number[]): number[] {
  return [
    ...op.block,
    ...op.get(c),
    ...op.get(rowBytes),
    ...op.geS,
    ...op.brIf(0),
    ...body,
    ...op.end,
  ];
}

/**
 * dst[c .. c+pairs) += s · src[c ..], pairwise over a row of `rowBytes` bytes, then the odd last
 * element: locals dst, src (pointers), s (v128 splat), c, limit (scratch), rowBytes.
 */
function axpyRow(dst: number, src: number, s: number, c: number, limit: number, rowBytes: number) {
  return [
    ...pairs(c, limit, rowBytes, [
      ...localSum(dst, c),
      ...localSum(dst, c),
      ...op.vLoad,
      ...op.get(s),
      ...localSum(src, c),
      ...op.vLoad,
      ...op.vMul,
      ...op.vAdd,
      ...op.vStore,
    ]),
    // odd L: one element left when c < rowBytes
    ...oddLast(c, rowBytes, [
      ...localSum(dst, c),
      ...f64At(dst, c),
      ...op.get(s),
      ...op.lane0,
      ...f64At(src, c),
      ...op.f64Mul,
      ...op.f64Add,
      ...op.f64Store,
    ]),
  ];
}

/** Local s ← the f64 at local pointer + local offset, in both lanes. */
function splatLoad(pointer: number, offset: number, s: number): number[] {
  return [...f64At(pointer, offset), ...op.splat, ...op.set(s)];
}

function axpyRowsBody(): number[] {
  // params: 0 m, 1 x, 2 out, 3 L; locals: 4 rowBytes, 5 r, 6 c, 7 limit, 8 rowPtr, 9 s(v128), 10 rEnd
  const [m, x, out, L, rowBytes, r, c, limit, rowPtr, s, rEnd] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
  return [
    ...shiftLeft(L, 3),
    ...op.set(rowBytes),
    ...zeroBytes(out, rowBytes, c),
    ...op.get(m),
    ...op.set(rowPtr),
    ...op.i32(0),
    ...op.set(r),
    ...op.get(rowBytes),
    ...op.set(rEnd),
    // out += x[r] · row r of m, the row pointer stepping through m
    ...forLoop(r, rEnd, 8, [
      ...splatLoad(x, r, s),
      ...axpyRow(out, rowPtr, s, c, limit, rowBytes),
      ...advance(rowPtr, rowBytes),
    ]),
  ];
}

function outerSumBody(): number[] {
  // params: 0 left, 1 right, 2 rows, 3 L, 4 w, 5 out
  // i32 locals: 6 rowBytes, 7 a, 8 cb, 9 limit, 10 xp, 11 mp, 12 r, 13 end, 14 dst, 15 column,
  // 16 total, 17 c; v128: 18–21 accumulators, 22 s; f64: 23 xs
  const [left, right, rows, L, w, out] = [0, 1, 2, 3, 4, 5];
  const [rowBytes, a, dst, column, total, c] = [6, 7, 14, 15, 16, 17];
  return [
    ...shiftLeft(L, 3),
    ...op.set(rowBytes),
    ...op.get(out),
    ...op.set(dst),
    ...op.i32(0),
    ...op.set(a),
    // row a of out = Σ_i left[i·L + a] · row i of right: column a of left weighs right's rows
    ...forLoop(a, rowBytes, 8, [
      ...localSum(left, a),
      ...op.set(column),
      ...weightedRowSum(dst, column, op.get(rowBytes), right, op.get(rows), {
        rowBytes,
        cb: 8,
        limit: 9,
        xp: 10,
        mp: 11,
        r: 12,
        end: 13,
        acc: [18, 19, 20, 21],
        s: 22,
        xs: 23,
      }),
      ...advance(dst, rowBytes),
    ]),
    // out ∘= w
    ...op.get(L),
    ...op.get(rowBytes),
    ...op.mul,
    ...op.set(total),
    ...countUp(c, total, 8, [
      ...localSum(out, c),
      ...f64At(out, c),
      ...f64At(w, c),
      ...op.f64Mul,
      ...op.f64Store,
    ]),
  ];
}

/**
 * The shared loop nest of the two sweeps: for tokens j in [from, to), attribute occurrences k of
 * j, the byte range [ranges[2k], ranges[2k+1]) of the occurrence's features in a packed feature
 * array (16 bytes a feature: a float64 value, then its int32 label), `inner` runs with `row` (byte
 * pointer of the token's row in `rows`) and `q` (the feature's byte offset) set.
 * Locals from `first` on: j, row, k, kEnd, q, qEnd, ptr.
 */
function sweepNest(
  p: { offsets: number; ranges: number; rows: number; from: number; to: number; L: number },
  first: number,
  inner: (locals: { row: number; q: number; ptr: number }) => number[],
): number[] {
  const [j, row, k, kEnd, q, qEnd, ptr] = [0, 1, 2, 3, 4, 5, 6].map((x) => first + x) as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const nextInt32 = [...op.i32(4), ...op.add, ...op.i32Load];
  return [
    ...op.get(p.from),
    ...op.set(j),
    ...op.get(p.rows),
    ...op.set(row),
    ...int32At(p.offsets, j),
    ...op.i32Load,
    ...op.set(k),
    ...forLoop(j, p.to, 1, [
      ...int32At(p.offsets, j),
      ...nextInt32,
      ...op.set(kEnd),
      ...forLoop(k, kEnd, 1, [
        // ranges + 8·k: the occurrence's [begin, end) byte offsets
        ...op.get(p.ranges),
        ...shiftLeft(k, 3),
        ...op.add,
        ...op.tee(ptr),
        ...op.i32Load,
        ...op.set(q),
        ...op.get(ptr),
        ...nextInt32,
        ...op.set(qEnd),
        ...forLoop(q, qEnd, 16, inner({ row, q, ptr })),
      ]),
      ...op.get(row),
      ...shiftLeft(p.L, 3),
      ...op.add,
      ...op.set(row),
    ]),
  ];
}

/** Pushes row + 8·(the label of the packed feature at base + q). */
function packedLabelSlot(base: number, q: number, row: number): number[] {
  return [
    ...localSum(base, q),
    ...op.i32(8),
    ...op.add,
    ...op.i32Load,
    ...op.i32(3),
    ...op.shl,
    ...op.get(row),
    ...op.add,
  ];
}

function scoreSweepBody(): number[] {
  // params: 0 offsets, 1 ranges, 2 packed weights, 3 unary, 4 from, 5 to, 6 L; locals 7…13 the
  // nest's, 14 bytes, 15 c
  const params = { offsets: 0, ranges: 1, rows: 3, from: 4, to: 5, L: 6 };
  const [packed, unary, from, to, L] = [2, 3, 4, 5, 6];
  const [bytes, c] = [14, 15];
  return [
    ...op.get(to),
    ...op.get(from),
    ...op.sub,
    ...op.get(L),
    ...op.mul,
    ...op.i32(3),
    ...op.shl,
    ...op.set(bytes),
    ...zeroBytes(unary, bytes, c),
    // unary[row + 8·label] += weight: label and weight share the feature's 16 bytes (one cache
    // line, where separate label and weight arrays cost two misses for a rare attribute)
    ...sweepNest(params, 7, ({ row, q, ptr }) => [
      ...packedLabelSlot(packed, q, row),
      ...op.tee(ptr),
      ...op.get(ptr),
      ...op.f64Load,
      ...f64At(packed, q),
      ...op.f64Add,
      ...op.f64Store,
    ]),
  ];
}

function gradientSweepBody(): number[] {
  // params: 0 offsets, 1 ranges, 2 packed gradient, 3 residual, 4 from, 5 to, 6 L, 7 scale
  // (f64); locals 8…14 the nest's
  const params = { offsets: 0, ranges: 1, rows: 3, from: 4, to: 5, L: 6 };
  const [packed, scale] = [2, 7];
  // gradient value += scale · residual[row + 8·label]
  return sweepNest(params, 8, ({ row, q, ptr }) => [
    ...localSum(packed, q),
    ...op.tee(ptr),
    ...op.get(ptr),
    ...op.f64Load,
    ...op.get(scale),
    ...packedLabelSlot(packed, q, row),
    ...op.f64Load,
    ...op.f64Mul,
    ...op.f64Add,
    ...op.f64Store,
  ]);
}

/** 1/0!, 1/1!, …, 1/13!: the Taylor coefficients of exp on |r| ≤ ln 2 / 2. */
const EXP_COEFFICIENTS = (() => {
  const out: number[] = [];
  let factorial = 1;
  for (let k = 0; k <= 13; k++) {
    if (k > 0) factorial *= k;
    out.push(1 / factorial);
  }
  return out;
})();

/**
 * Σ_k c_k r^k by Estrin's scheme: pairs c_2i + c_2i+1·r, combined with r², r⁴, r⁸. The
 * dependency chain is four multiply-adds deep instead of Horner's thirteen, so successive
 * elements overlap in the pipeline (Horner left exp latency-bound). Locals: r, r2, r4, r8.
 */
function estrin(r: number, r2: number, r4: number, r8: number): number[] {
  const c = EXP_COEFFICIENTS;
  const fma = (power: number) => [...op.get(power), ...op.vMul, ...op.vAdd];
  const pair = (i: number) => [...splatF64(c[2 * i]!), ...splatF64(c[2 * i + 1]!), ...fma(r)];
  const quad = (j: number) =>
    j === 3 ? pair(6) : [...pair(2 * j), ...pair(2 * j + 1), ...fma(r2)];
  return [
    ...op.get(r),
    ...op.get(r),
    ...op.vMul,
    ...op.tee(r2),
    ...op.get(r2),
    ...op.vMul,
    ...op.tee(r4),
    ...op.get(r4),
    ...op.vMul,
    ...op.set(r8),
    ...quad(0),
    ...quad(1),
    ...fma(r4),
    ...quad(2),
    ...quad(3),
    ...fma(r4),
    ...fma(r8),
  ];
}

function expPairsBody(): number[] {
  // params: 0 ptr, 1 pairs; locals: 2 at, 3 end, 4 x, 5 k, 6 r, 7 p, 8 r², 9 r⁴, 10 r⁸ (v128)
  const [ptr, pairs, at, end, x, k, r, p] = [0, 1, 2, 3, 4, 5, 6, 7];
  // fdlibm's split of ln 2: the high part has trailing zero bits, so k·LN2_HI is exact
  const LN2_HI = 0.6931471803691238;
  const LN2_LO = 1.9082149292705877e-10;
  const [r2, r4, r8] = [8, 9, 10];
  const polynomial = [...estrin(r, r2, r4, r8), ...op.set(p)];
  return [
    ...op.get(ptr),
    ...op.set(at),
    ...op.get(ptr),
    ...shiftLeft(pairs, 4),
    ...op.add,
    ...op.set(end),
    ...forLoop(at, end, 16, [
      ...op.get(at),
      ...op.vLoad,
      ...op.set(x),
      // k = nearest(max(x, −708) / ln 2); the clamp keeps −∞ out of the integer conversion
      ...op.get(x),
      ...splatF64(-708),
      ...op.f64x2Max,
      ...op.tee(r),
      ...splatF64(1 / Math.LN2),
      ...op.vMul,
      ...op.f64x2Nearest,
      ...op.set(k),
      // r = (x − k·ln2_hi) − k·ln2_lo
      ...op.get(r),
      ...op.get(k),
      ...splatF64(LN2_HI),
      ...op.vMul,
      ...op.f64x2Sub,
      ...op.get(k),
      ...splatF64(LN2_LO),
      ...op.vMul,
      ...op.f64x2Sub,
      ...op.set(r),
      ...polynomial,
      // store: p · 2^k (exponent bits (k + 1023) << 52), lanes with x < −708 (or NaN) zeroed
      ...op.get(at),
      ...op.get(p),
      ...op.get(k),
      ...op.i32x4TruncSatF64x2Zero,
      ...op.i64x2ExtendLowI32x4,
      ...splatI64(1023),
      ...op.i64x2Add,
      ...op.i32(52),
      ...op.i64x2Shl,
      ...op.vMul,
      ...op.get(x),
      ...splatF64(-708),
      ...op.f64x2Ge,
      ...op.v128And,
      ...op.vStore,
    ]),
  ];
}

/**
 * The scaled forward-backward's recursions, whole chains per call (one call per sentence and
 * direction instead of one per position, and the O(n·L) row work two lanes at a time instead of
 * in JavaScript loops). Row helpers below take locals by index; `rowBytes` = 8·L.
 */

/** Local to ← local from, for each [from, to]. */
function copyLocals(pairs: ReadonlyArray<readonly [number, number]>): number[] {
  return pairs.flatMap(([from, to]) => [...op.get(from), ...op.set(to)]);
}

/** v ← 0 (a v128 local). */
function zeroVector(v: number): number[] {
  return [...splatF64(0), ...op.set(v)];
}

/**
 * dst[c] = a[c]·b[c] (b = null: dst[c] = a[c]) over one row, and f64 local `sum` ← Σ dst[c].
 * Scratch locals: c, limit (i32), x, acc (v128), xs (f64).
 */
function productRow(
  dst: number,
  a: number,
  b: number | null,
  sum: number,
  s: { c: number; limit: number; rowBytes: number; x: number; acc: number; xs: number },
): number[] {
  const load = (ptr: number) => [...localSum(ptr, s.c), ...op.vLoad];
  const loadScalar = (ptr: number) => f64At(ptr, s.c);
  return [
    ...zeroVector(s.acc),
    ...pairs(s.c, s.limit, s.rowBytes, [
      ...localSum(dst, s.c),
      ...load(a),
      ...(b === null ? [] : [...load(b), ...op.vMul]),
      ...op.tee(s.x),
      ...op.vStore,
      ...op.get(s.acc),
      ...op.get(s.x),
      ...op.vAdd,
      ...op.set(s.acc),
    ]),
    ...laneSum(s.acc),
    ...op.set(sum),
    // odd L: the last element
    ...oddLast(s.c, s.rowBytes, [
      ...localSum(dst, s.c),
      ...loadScalar(a),
      ...(b === null ? [] : [...loadScalar(b), ...op.f64Mul]),
      ...op.tee(s.xs),
      ...op.f64Store,
      ...op.get(sum),
      ...op.get(s.xs),
      ...op.f64Add,
      ...op.set(sum),
    ]),
  ];
}

/** dst[c] ·= f over one row; f is a v128 splat local. Scratch: c, limit. */
function scaleRow(
  dst: number,
  f: number,
  s: { c: number; limit: number; rowBytes: number },
): number[] {
  return [
    ...pairs(s.c, s.limit, s.rowBytes, [
      ...localSum(dst, s.c),
      ...localSum(dst, s.c),
      ...op.vLoad,
      ...op.get(f),
      ...op.vMul,
      ...op.vStore,
    ]),
    ...oddLast(s.c, s.rowBytes, [
      ...localSum(dst, s.c),
      ...f64At(dst, s.c),
      ...op.get(f),
      ...op.lane0,
      ...op.f64Mul,
      ...op.f64Store,
    ]),
  ];
}

/**
 * out[c] = Σ_{r < count} x[r·xStride] · m[r·rowBytes/8 + c] for c < L: a weighted sum of `count`
 * rows of m, the weights strided in x (8 bytes: a row vector times a block; 8·L: one column of
 * a row-major matrix). Eight columns at a time in four independent accumulators, so the sums
 * stay in registers across the r loop and the adds do not wait on one another; then pairs, then
 * the odd column. Locals (i32): cb, limit, xp, mp, r; (v128): a0–a3, s; (f64): xs.
 */
function weightedRowSum(
  out: number,
  x: number,
  xStride: number[],
  m: number,
  count: number[],
  t: {
    rowBytes: number;
    cb: number;
    limit: number;
    xp: number;
    mp: number;
    r: number;
    end: number;
    acc: readonly [number, number, number, number];
    s: number;
    xs: number;
  },
): number[] {
  const startRows = [
    ...op.get(x),
    ...op.set(t.xp),
    ...op.get(m),
    ...op.get(t.cb),
    ...op.add,
    ...op.set(t.mp),
    ...op.i32(0),
    ...op.set(t.r),
  ];
  const nextRow = [
    ...op.get(t.xp),
    ...xStride,
    ...op.add,
    ...op.set(t.xp),
    ...advance(t.mp, t.rowBytes),
  ];
  const loadAt = (offset: number) =>
    offset === 0
      ? [...op.get(t.mp), ...op.vLoad]
      : [...op.get(t.mp), ...op.i32(offset), ...op.add, ...op.vLoad];
  const accumulate = (k: number) => [
    ...op.get(t.acc[k]!),
    ...op.get(t.s),
    ...loadAt(16 * k),
    ...op.vMul,
    ...op.vAdd,
    ...op.set(t.acc[k]!),
  ];
  const storeAt = (k: number) => [
    ...localSum(out, t.cb),
    ...(k === 0 ? [] : [...op.i32(16 * k), ...op.add]),
    ...op.get(t.acc[k]!),
    ...op.vStore,
  ];
  const splatX = [...op.get(t.xp), ...op.f64Load, ...op.splat, ...op.set(t.s)];
  const chunk = (lanes: number) => [
    ...op.get(t.rowBytes),
    ...op.i32(16 * lanes - 1),
    ...op.sub,
    ...op.set(t.limit),
    ...forLoop(t.cb, t.limit, 16 * lanes, [
      ...Array.from({ length: lanes }, (_, k) => zeroVector(t.acc[k]!)).flat(),
      ...startRows,
      ...forLoop(t.r, t.end, 1, [
        ...splatX,
        ...Array.from({ length: lanes }, (_, k) => accumulate(k)).flat(),
        ...nextRow,
      ]),
      ...Array.from({ length: lanes }, (_, k) => storeAt(k)).flat(),
    ]),
  ];
  return [
    ...count,
    ...op.set(t.end),
    ...op.i32(0),
    ...op.set(t.cb),
    ...chunk(4),
    ...chunk(1),
    // odd L: the last column
    ...oddLast(t.cb, t.rowBytes, [
      ...op.f64(0),
      ...op.set(t.xs),
      ...startRows,
      ...forLoop(t.r, t.end, 1, [
        ...op.get(t.xs),
        ...op.get(t.xp),
        ...op.f64Load,
        ...op.get(t.mp),
        ...op.f64Load,
        ...op.f64Mul,
        ...op.f64Add,
        ...op.set(t.xs),
        ...nextRow,
      ]),
      ...localSum(out, t.cb),
      ...op.get(t.xs),
      ...op.f64Store,
    ]),
  ];
}

/** Stores f64 local `value` at the pointer in local `at`. */
function storeF64(at: number, value: number[]): number[] {
  return [...op.get(at), ...value, ...op.f64Store];
}

function forwardScaledBody(): number[] {
  // params: 0 expT, 1 expU, 2 alpha, 3 scale, 4 n, 5 L, 6 blockBytes (0 shared, 8·L² per
  // position), 7 status; i32 locals: 8 rowBytes, 9 i, 10 c, 11 limit, 12 prev, 13 cur, 14 u,
  // 15 r, 16 (spare), 17 block, 18 scalePtr; f64: 19 sum, 20 xs; v128: 21 x, 22 acc, 23 s;
  // i32: 24 xp, 25 mp, 26 end; v128: 27, 28 (the row sum's accumulators with x and acc)
  const [expT, expU, alpha, scale, n, L, blockBytes, status] = [0, 1, 2, 3, 4, 5, 6, 7];
  const [rowBytes, i, c, limit, prev, cur, u, r, block, scalePtr] = [
    8, 9, 10, 11, 12, 13, 14, 15, 17, 18,
  ];
  const [sum, xs, x, acc, s] = [19, 20, 21, 22, 23];
  const row = { c, limit, rowBytes, x, acc, xs };
  const normalise = [
    // scale[i] = 1 / sum; alpha[i] ·= scale[i]; a sum of 0, ∞ or NaN stops with status 0
    ...positiveFinite(sum),
    ...op.if,
    ...op.else,
    ...storeF64(status, op.f64(0)),
    ...op.return,
    ...op.end,
    ...op.get(scalePtr),
    ...op.f64(1),
    ...op.get(sum),
    ...op.f64Div,
    ...op.tee(xs),
    ...op.f64Store,
    ...op.get(xs),
    ...op.splat,
    ...op.set(s),
    ...scaleRow(cur, s, row),
  ];
  return [
    ...shiftLeft(L, 3),
    ...op.set(rowBytes),
    ...copyLocals([
      [alpha, cur],
      [expU, u],
      [scale, scalePtr],
      [expT, block],
    ]),
    ...productRow(cur, u, null, sum, row),
    ...normalise,
    ...op.i32(1),
    ...op.set(i),
    ...forLoop(i, n, 1, [
      ...op.get(cur),
      ...op.set(prev),
      ...advance(cur, rowBytes),
      ...advance(u, rowBytes),
      ...op.get(scalePtr),
      ...op.i32(8),
      ...op.add,
      ...op.set(scalePtr),
      ...weightedRowSum(cur, prev, op.i32(8), block, op.get(L), {
        rowBytes,
        cb: c,
        limit,
        xp: 24,
        mp: 25,
        r,
        end: 26,
        acc: [x, acc, 27, 28],
        s,
        xs,
      }),
      ...advance(block, blockBytes),
      ...productRow(cur, cur, u, sum, row),
      ...normalise,
    ]),
    ...storeF64(status, op.f64(1)),
  ];
}

function backwardScaledBody(): number[] {
  // params: 0 expTT (transposed blocks), 1 expU, 2 beta, 3 next, 4 scale, 5 n, 6 L,
  // 7 blockBytes; i32 locals: 8 rowBytes, 9 k, 10 c, 11 limit, 12 cur (beta row i), 13 nx (next
  // row i+1), 14 u (expU row i+1), 15 r, 16 (spare), 17 block, 18 scalePtr, 19 steps;
  // f64: 20 sum, 21 xs; v128: 22 x, 23 acc, 24 s; i32: 25 xp, 26 mp, 27 end; v128: 28, 29
  const [expTT, expU, beta, next, scale, n, L, blockBytes] = [0, 1, 2, 3, 4, 5, 6, 7];
  const [rowBytes, k, c, limit, cur, nx, u, r, block, scalePtr, steps] = [
    8, 9, 10, 11, 12, 13, 14, 15, 17, 18, 19,
  ];
  const [sum, xs, x, acc, s] = [20, 21, 22, 23, 24];
  const row = { c, limit, rowBytes, x, acc, xs };
  // p ← base + (n − 1 − back)·step
  const at = (base: number, back: number, step: number[]) => [
    ...op.get(n),
    ...op.i32(1 + back),
    ...op.sub,
    ...step,
    ...op.mul,
    ...op.get(base),
    ...op.add,
  ];
  const retreat = (p: number, bytes: number[]) => [...op.get(p), ...bytes, ...op.sub, ...op.set(p)];
  return [
    ...shiftLeft(L, 3),
    ...op.set(rowBytes),
    // beta[n−1][t] = scale[n−1]
    ...at(beta, 0, op.get(rowBytes)),
    ...op.set(cur),
    ...at(scale, 0, op.i32(8)),
    ...op.tee(scalePtr),
    ...op.f64Load,
    ...op.splat,
    ...op.set(s),
    ...countUp(c, rowBytes, 8, [...localSum(cur, c), ...op.get(s), ...op.lane0, ...op.f64Store]),
    ...at(next, 0, op.get(rowBytes)),
    ...op.set(nx),
    ...at(expU, 0, op.get(rowBytes)),
    ...op.set(u),
    ...at(expTT, 1, op.get(blockBytes)),
    ...op.set(block),
    ...op.get(n),
    ...op.i32(1),
    ...op.sub,
    ...op.set(steps),
    ...countUp(k, steps, 1, [
      // next[i+1] = expU[i+1] ∘ beta[i+1]; beta[i] = scale[i] · (T · next[i+1])
      ...productRow(nx, u, cur, sum, row),
      ...retreat(cur, op.get(rowBytes)),
      ...retreat(scalePtr, op.i32(8)),
      ...weightedRowSum(cur, nx, op.i32(8), block, op.get(L), {
        rowBytes,
        cb: c,
        limit,
        xp: 25,
        mp: 26,
        r,
        end: 27,
        acc: [x, acc, 28, 29],
        s,
        xs,
      }),
      ...op.get(scalePtr),
      ...op.f64Load,
      ...op.splat,
      ...op.set(s),
      ...scaleRow(cur, s, row),
      ...retreat(nx, op.get(rowBytes)),
      ...retreat(u, op.get(rowBytes)),
      ...retreat(block, op.get(blockBytes)),
    ]),
  ];
}

function marginalsScaledBody(): number[] {
  // params: 0 alpha, 1 beta, 2 scale, 3 marg, 4 n, 5 L, 6 status; i32 locals: 7 rowBytes, 8 i,
  // 9 c, 10 limit, 11 a, 12 b, 13 m, 14 scalePtr; f64: 15 sum, 16 xs, 17 worst; v128: 18 x,
  // 19 acc, 20 s
  const [alpha, beta, scale, marg, n, L, status] = [0, 1, 2, 3, 4, 5, 6];
  const [rowBytes, i, c, limit, a, b, m, scalePtr] = [7, 8, 9, 10, 11, 12, 13, 14];
  const [sum, xs, worst, x, acc, s] = [15, 16, 17, 18, 19, 20];
  const row = { c, limit, rowBytes, x, acc, xs };
  return [
    ...shiftLeft(L, 3),
    ...op.set(rowBytes),
    ...copyLocals([
      [alpha, a],
      [beta, b],
      [marg, m],
      [scale, scalePtr],
    ]),
    ...op.f64(0),
    ...op.set(worst),
    ...countUp(i, n, 1, [
      // p = alpha·beta / scale[i]; worst = max |Σ_t p − 1| (NaN sticks: f64.max propagates it)
      ...productRow(m, a, b, sum, row),
      ...op.f64(1),
      ...op.get(scalePtr),
      ...op.f64Load,
      ...op.f64Div,
      ...op.tee(xs),
      ...op.splat,
      ...op.set(s),
      ...scaleRow(m, s, row),
      ...op.get(worst),
      ...op.get(sum),
      ...op.get(xs),
      ...op.f64Mul,
      ...op.f64(1),
      ...op.f64Sub,
      ...op.f64Abs,
      ...op.f64Max,
      ...op.set(worst),
      ...advance(a, rowBytes),
      ...advance(b, rowBytes),
      ...advance(m, rowBytes),
      ...op.get(scalePtr),
      ...op.i32(8),
      ...op.add,
      ...op.set(scalePtr),
    ]),
    ...storeF64(status, op.get(worst)),
  ];
}

function shiftRowsBody(): number[] {
  // params: 0 ptr, 1 n, 2 L, 3 status; i32 locals: 4 rowBytes, 5 end, 6 c, 7 row; f64: 8 m,
  // 9 total. Each row minus its maximum; status ← Σ maxima, or −∞ (and stop) at a row with no
  // allowed label.
  const [ptr, n, L, status] = [0, 1, 2, 3];
  const [rowBytes, end, c, row] = [4, 5, 6, 7];
  const [m, total] = [8, 9];
  return [
    ...shiftLeft(L, 3),
    ...op.set(rowBytes),
    ...op.get(n),
    ...op.get(rowBytes),
    ...op.mul,
    ...op.get(ptr),
    ...op.add,
    ...op.set(end),
    ...op.get(ptr),
    ...op.set(row),
    ...op.f64(0),
    ...op.set(total),
    ...forLoop(row, end, 0, [
      ...op.f64(Number.NEGATIVE_INFINITY),
      ...op.set(m),
      ...countUp(c, rowBytes, 8, [...op.get(m), ...f64At(row, c), ...op.f64Max, ...op.set(m)]),
      ...op.get(m),
      ...op.f64(Number.NEGATIVE_INFINITY),
      ...op.f64Eq,
      ...op.if,
      ...storeF64(status, op.get(m)),
      ...op.return,
      ...op.end,
      ...op.get(total),
      ...op.get(m),
      ...op.f64Add,
      ...op.set(total),
      ...countUp(c, rowBytes, 8, [
        ...localSum(row, c),
        ...f64At(row, c),
        ...op.get(m),
        ...op.f64Sub,
        ...op.f64Store,
      ]),
      ...advance(row, rowBytes),
    ]),
    ...storeF64(status, op.get(total)),
  ];
}

function kernelFunctions(): FunctionDefinition[] {
  return [
    {
      name: "axpyRows",
      params: [I32, I32, I32, I32],
      locals: [
        [5, I32],
        [1, V128],
        [1, I32],
      ],
      code: axpyRowsBody(),
    },
    {
      name: "outerSum",
      params: [I32, I32, I32, I32, I32, I32],
      locals: [
        [12, I32],
        [5, V128],
        [1, F64],
      ],
      code: outerSumBody(),
    },
    {
      name: "scoreSweep",
      params: [I32, I32, I32, I32, I32, I32, I32],
      locals: [[9, I32]],
      code: scoreSweepBody(),
    },
    {
      name: "gradientSweep",
      params: [I32, I32, I32, I32, I32, I32, I32, F64],
      locals: [[7, I32]],
      code: gradientSweepBody(),
    },
    {
      name: "forwardScaled",
      params: [I32, I32, I32, I32, I32, I32, I32, I32],
      locals: [
        [11, I32],
        [2, F64],
        [3, V128],
        [3, I32],
        [2, V128],
      ],
      code: forwardScaledBody(),
    },
    {
      name: "backwardScaled",
      params: [I32, I32, I32, I32, I32, I32, I32, I32],
      locals: [
        [12, I32],
        [2, F64],
        [3, V128],
        [3, I32],
        [2, V128],
      ],
      code: backwardScaledBody(),
    },
    {
      name: "marginalsScaled",
      params: [I32, I32, I32, I32, I32, I32, I32],
      locals: [
        [8, I32],
        [3, F64],
        [3, V128],
      ],
      code: marginalsScaledBody(),
    },
    {
      name: "shiftRows",
      params: [I32, I32, I32, I32],
      locals: [
        [4, I32],
        [2, F64],
      ],
      code: shiftRowsBody(),
    },
    {
      name: "expPairs",
      params: [I32, I32],
      locals: [
        [2, I32],
        [7, V128],
      ],
      code: expPairsBody(),
    },
  ];
}

export interface SimdKernels {
  readonly memory: KernelMemory;
  axpyRows(m: number, x: number, out: number, L: number): void;
  outerSum(left: number, right: number, rows: number, L: number, w: number, out: number): void;
  scoreSweep(
    offsets: number,
    ranges: number,
    packedWeights: number,
    unary: number,
    from: number,
    to: number,
    L: number,
  ): void;
  gradientSweep(
    offsets: number,
    ranges: number,
    packedGradient: number,
    residual: number,
    from: number,
    to: number,
    L: number,
    scale: number,
  ): void;
  expPairs(ptr: number, pairs: number): void;
  forwardScaled(
    expT: number,
    expU: number,
    alpha: number,
    scale: number,
    n: number,
    L: number,
    blockBytes: number,
    status: number,
  ): void;
  backwardScaled(
    expTT: number,
    expU: number,
    beta: number,
    next: number,
    scale: number,
    n: number,
    L: number,
    blockBytes: number,
  ): void;
  marginalsScaled(
    alpha: number,
    beta: number,
    scale: number,
    marg: number,
    n: number,
    L: number,
    status: number,
  ): void;
  shiftRows(ptr: number, n: number, L: number, status: number): void;
}

const compiledModule = compiledOnce(() => assembleModule(kernelFunctions()));

/** A fresh instance with its own memory of `pages` 64 KiB pages, or null without WASM SIMD. */
export function instantiateSimd(pages: number): SimdKernels | null {
  const compiled = compiledModule();
  if (compiled === null) return null;
  const { memory, exports: e } = instantiateKernel<Omit<SimdKernels, "memory">>(compiled, pages);
  return {
    memory,
    axpyRows: e.axpyRows,
    outerSum: e.outerSum,
    scoreSweep: e.scoreSweep,
    gradientSweep: e.gradientSweep,
    expPairs: e.expPairs,
    forwardScaled: e.forwardScaled,
    backwardScaled: e.backwardScaled,
    marginalsScaled: e.marginalsScaled,
    shiftRows: e.shiftRows,
  };
}

/** The assembled module's bytes (for tests). */
export function simdModuleBytes(): Uint8Array {
  return assembleModule(kernelFunctions());
}
