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
 * corpus, the layout, a copy of the weights and the gradient accumulator live in the memory:
 *   scoreSweep(offsets, ids, attrOffsets, labels, w, unary, from, to, L):
 *       unary[(j−from)·L + labels[f]] = Σ w[f] over the features f of the attributes of tokens j
 *   gradientSweep(offsets, ids, attrOffsets, labels, grad, residual, from, to, L, scale):
 *       grad[f] += scale · residual[(j−from)·L + labels[f]] over the same features
 * (offsets, ids, attrOffsets, labels are int32 arrays; the sweeps are scalar: no bounds checks is
 * what makes them ~2.3× faster than the JavaScript loops.)
 *   expPairs(ptr, pairs): x ← exp(x) in place for 2·pairs doubles x ≤ 0 (or −∞), two lanes at a
 *       time: x = k·ln 2 + r with |r| ≤ ln 2 / 2, a degree-13 Taylor polynomial in r (relative
 *       error ≤ 2.3e-16 there), times 2^k built from the exponent bits; x < −708 gives exactly 0
 *       (−∞ included), i.e. values below 3.3e-308 relative to the row's maximum are dropped, as
 *       the scaled forward-backward drops them anyway. V8's Math.exp costs ≈ 16 ns here.
 */
import {
  advance,
  assembleModule,
  compiledOnce,
  F64,
  type FunctionDefinition,
  forLoop,
  I32,
  instantiateKernel,
  int32At,
  type KernelMemory,
  localSum,
  op,
  shiftLeft,
  splatF64,
  splatI64,
  V128,
  zeroBytes,
} from "@lagrange/core/wasm";

/**
 * dst[c .. c+pairs) += s · src[c ..], pairwise over a row of `rowBytes` bytes, then the odd last
 * element: locals dst, src (pointers), s (v128 splat), c, limit (scratch), rowBytes.
 */
function axpyRow(dst: number, src: number, s: number, c: number, limit: number, rowBytes: number) {
  return [
    ...op.i32(0),
    ...op.set(c),
    ...op.get(rowBytes),
    ...op.i32(15),
    ...op.sub,
    ...op.set(limit), // pairs while c < rowBytes − 15, i.e. c + 16 ≤ rowBytes
    ...forLoop(c, limit, 16, [
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
    ...op.block,
    ...op.get(c),
    ...op.get(rowBytes),
    ...op.geS,
    ...op.brIf(0),
    ...localSum(dst, c),
    ...localSum(dst, c),
    ...op.f64Load,
    ...op.get(s),
    ...op.lane0,
    ...localSum(src, c),
    ...op.f64Load,
    ...op.f64Mul,
    ...op.f64Add,
    ...op.f64Store,
    ...op.end,
  ];
}

/** Local s ← the f64 at local pointer + local offset, in both lanes. */
function splatLoad(pointer: number, offset: number, s: number): number[] {
  return [...localSum(pointer, offset), ...op.f64Load, ...op.splat, ...op.set(s)];
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
  // locals: 6 rowBytes, 7 i, 8 a, 9 c, 10 limit, 11 dst, 12 src, 13 s(v128), 14 total, 15 leftRow
  const [left, right, rows, L, w, out] = [0, 1, 2, 3, 4, 5];
  const [rowBytes, i, a, c, limit, dst, src, s, total, leftRow] = [
    6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
  ];
  return [
    ...shiftLeft(L, 3),
    ...op.set(rowBytes),
    ...op.get(L),
    ...op.get(rowBytes),
    ...op.mul,
    ...op.set(total),
    ...zeroBytes(out, total, c),
    ...op.i32(0),
    ...op.set(i),
    ...forLoop(i, rows, 1, [
      // leftRow = left + i·rowBytes; src = right + i·rowBytes; dst = out
      ...op.get(i),
      ...op.get(rowBytes),
      ...op.mul,
      ...op.tee(src),
      ...op.get(left),
      ...op.add,
      ...op.set(leftRow),
      ...localSum(src, right),
      ...op.set(src),
      ...op.get(out),
      ...op.set(dst),
      ...op.i32(0),
      ...op.set(a),
      // row a of out += left[i·L + a] · row i of right, the row pointer stepping through out
      ...forLoop(a, rowBytes, 8, [
        ...splatLoad(leftRow, a, s),
        ...axpyRow(dst, src, s, c, limit, rowBytes),
        ...advance(dst, rowBytes),
      ]),
    ]),
    // out ∘= w
    ...op.i32(0),
    ...op.set(c),
    ...forLoop(c, total, 8, [
      ...localSum(out, c),
      ...localSum(out, c),
      ...op.f64Load,
      ...localSum(w, c),
      ...op.f64Load,
      ...op.f64Mul,
      ...op.f64Store,
    ]),
  ];
}

/**
 * The shared loop nest of the two sweeps: for tokens j in [from, to), attributes k of j,
 * features f of attribute a, run `inner` with `row` (byte pointer of the token's row in `rows`)
 * and `f` set. Locals from `first` on: j, row, k, kEnd, f, fEnd, a, p.
 */
function sweepNest(
  p: {
    offsets: number;
    ids: number;
    attrOffsets: number;
    rows: number;
    from: number;
    to: number;
    L: number;
  },
  first: number,
  inner: (locals: { row: number; f: number; ptr: number }) => number[],
): number[] {
  const [j, row, k, kEnd, f, fEnd, a, ptr] = [0, 1, 2, 3, 4, 5, 6, 7].map((x) => first + x) as [
    number,
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
        ...int32At(p.ids, k),
        ...op.i32Load,
        ...op.set(a),
        ...int32At(p.attrOffsets, a),
        ...op.i32Load,
        ...op.set(f),
        ...int32At(p.attrOffsets, a),
        ...nextInt32,
        ...op.set(fEnd),
        ...forLoop(f, fEnd, 1, inner({ row, f, ptr })),
      ]),
      ...op.get(row),
      ...shiftLeft(p.L, 3),
      ...op.add,
      ...op.set(row),
    ]),
  ];
}

/** Pushes row + 8·labels[f]: the address of feature f's label in the token's row. */
function labelSlot(labels: number, f: number, row: number): number[] {
  return [...int32At(labels, f), ...op.i32Load, ...op.i32(3), ...op.shl, ...op.get(row), ...op.add];
}

/** Pushes base + 8·f: the address of a float64 element. */
function float64At(base: number, f: number): number[] {
  return [...op.get(base), ...shiftLeft(f, 3), ...op.add];
}

/** *address += value, keeping the address in local `ptr`. */
function addToFloat64(address: number[], ptr: number, value: number[]): number[] {
  return [
    ...address,
    ...op.tee(ptr),
    ...op.get(ptr),
    ...op.f64Load,
    ...value,
    ...op.f64Add,
    ...op.f64Store,
  ];
}

function scoreSweepBody(): number[] {
  // params: 0 offsets, 1 ids, 2 attrOffsets, 3 labels, 4 w, 5 unary, 6 from, 7 to, 8 L; locals 9…
  const params = { offsets: 0, ids: 1, attrOffsets: 2, rows: 5, from: 6, to: 7, L: 8 };
  const [labels, w, unary, from, to, L] = [3, 4, 5, 6, 7, 8];
  const bytes = 9; // reuses local j's slot before the nest starts: the nest sets it first
  return [
    ...op.get(to),
    ...op.get(from),
    ...op.sub,
    ...op.get(L),
    ...op.mul,
    ...op.i32(3),
    ...op.shl,
    ...op.set(bytes + 8),
    ...zeroBytes(unary, bytes + 8, bytes),
    // unary[row + 8·labels[f]] += w[f]
    ...sweepNest(params, 9, ({ row, f, ptr }) =>
      addToFloat64(labelSlot(labels, f, row), ptr, [...float64At(w, f), ...op.f64Load]),
    ),
  ];
}

function gradientSweepBody(): number[] {
  // params: 0 offsets, 1 ids, 2 attrOffsets, 3 labels, 4 grad, 5 residual, 6 from, 7 to, 8 L,
  // 9 scale (f64); locals 10…
  const params = { offsets: 0, ids: 1, attrOffsets: 2, rows: 5, from: 6, to: 7, L: 8 };
  const [labels, grad, scale] = [3, 4, 9];
  // grad[f] += scale · residual[row + 8·labels[f]]
  return sweepNest(params, 10, ({ row, f, ptr }) =>
    addToFloat64(float64At(grad, f), ptr, [
      ...op.get(scale),
      ...labelSlot(labels, f, row),
      ...op.f64Load,
      ...op.f64Mul,
    ]),
  );
}

/** 1/13!, 1/12!, …, 1/1!, 1/0!: Horner coefficients of exp on |r| ≤ ln 2 / 2. */
const EXP_COEFFICIENTS = (() => {
  const out: number[] = [];
  let factorial = 1;
  for (let k = 1; k <= 13; k++) factorial *= k;
  for (let k = 13; k >= 0; k--) {
    out.push(1 / factorial);
    factorial /= k === 0 ? 1 : k;
  }
  return out;
})();

function expPairsBody(): number[] {
  // params: 0 ptr, 1 pairs; locals: 2 at, 3 end, 4 x(v128), 5 k(v128), 6 r(v128), 7 p(v128)
  const [ptr, pairs, at, end, x, k, r, p] = [0, 1, 2, 3, 4, 5, 6, 7];
  // fdlibm's split of ln 2: the high part has trailing zero bits, so k·LN2_HI is exact
  const LN2_HI = 0.6931471803691238;
  const LN2_LO = 1.9082149292705877e-10;
  const horner: number[] = [...splatF64(EXP_COEFFICIENTS[0]!), ...op.set(p)];
  for (const c of EXP_COEFFICIENTS.slice(1)) {
    horner.push(...op.get(p), ...op.get(r), ...op.vMul, ...splatF64(c), ...op.vAdd, ...op.set(p));
  }
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
      ...horner,
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
        [7, I32],
        [1, V128],
        [2, I32],
      ],
      code: outerSumBody(),
    },
    {
      name: "scoreSweep",
      params: [I32, I32, I32, I32, I32, I32, I32, I32, I32],
      locals: [[9, I32]],
      code: scoreSweepBody(),
    },
    {
      name: "gradientSweep",
      params: [I32, I32, I32, I32, I32, I32, I32, I32, I32, F64],
      locals: [[8, I32]],
      code: gradientSweepBody(),
    },
    {
      name: "expPairs",
      params: [I32, I32],
      locals: [
        [2, I32],
        [4, V128],
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
    ids: number,
    attrOffsets: number,
    labels: number,
    w: number,
    unary: number,
    from: number,
    to: number,
    L: number,
  ): void;
  gradientSweep(
    offsets: number,
    ids: number,
    attrOffsets: number,
    labels: number,
    grad: number,
    residual: number,
    from: number,
    to: number,
    L: number,
    scale: number,
  ): void;
  expPairs(ptr: number, pairs: number): void;
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
  };
}

/** The assembled module's bytes (for tests). */
export function simdModuleBytes(): Uint8Array {
  return assembleModule(kernelFunctions());
}
