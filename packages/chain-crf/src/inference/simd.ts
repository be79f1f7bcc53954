/**
 * The three L×L products of forward-backward as a tiny WebAssembly module with 128-bit SIMD
 * (two f64 lanes, no bounds checks), assembled here from opcodes so the source stays readable and
 * no binary blob or build step is needed. Used when the runtime supports WebAssembly SIMD (Node
 * ≥ 16, every current browser); the JavaScript kernels remain the fallback and the reference the
 * tests compare against.
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

const I32 = 0x7f;
const V128 = 0x7b;
const F64 = 0x7c;

function uleb(value: number): number[] {
  const out: number[] = [];
  let v = value >>> 0;
  do {
    let byte = v & 0x7f;
    v >>>= 7;
    if (v !== 0) byte |= 0x80;
    out.push(byte);
  } while (v !== 0);
  return out;
}

function sleb(value: number): number[] {
  const out: number[] = [];
  let v = value | 0;
  for (;;) {
    const byte = v & 0x7f;
    v >>= 7;
    const done = (v === 0 && (byte & 0x40) === 0) || (v === -1 && (byte & 0x40) !== 0);
    out.push(done ? byte : byte | 0x80);
    if (done) return out;
  }
}

/** Instruction emitters (the subset used below). */
const op = {
  get: (i: number) => [0x20, ...uleb(i)],
  set: (i: number) => [0x21, ...uleb(i)],
  tee: (i: number) => [0x22, ...uleb(i)],
  i32: (v: number) => [0x41, ...sleb(v)],
  i32Load: [0x28, 0x02, 0x00],
  add: [0x6a],
  sub: [0x6b],
  mul: [0x6c],
  shl: [0x74],
  geS: [0x4e],
  gtS: [0x4a],
  block: [0x02, 0x40],
  loop: [0x03, 0x40],
  brIf: (depth: number) => [0x0d, ...uleb(depth)],
  br: (depth: number) => [0x0c, ...uleb(depth)],
  end: [0x0b],
  f64Load: [0x2b, 0x03, 0x00],
  f64Store: [0x39, 0x03, 0x00],
  f64Add: [0xa0],
  f64Mul: [0xa2],
  f64Zero: [0x44, 0, 0, 0, 0, 0, 0, 0, 0],
  vLoad: [0xfd, 0x00, 0x03, 0x00],
  vStore: [0xfd, 0x0b, 0x03, 0x00],
  splat: [0xfd, 0x14],
  lane0: [0xfd, 0x21, 0x00],
  vAdd: [0xfd, 0xf0, 0x01],
  vMul: [0xfd, 0xf2, 0x01],
};

/** `for (; a < b; a += step) body` with a and b locals; step a constant. */
function forLoop(counter: number, limit: number, step: number, body: number[]): number[] {
  return [
    ...op.block,
    ...op.loop,
    ...op.get(counter),
    ...op.get(limit),
    ...op.geS,
    ...op.brIf(1),
    ...body,
    ...op.get(counter),
    ...op.i32(step),
    ...op.add,
    ...op.set(counter),
    ...op.br(0),
    ...op.end,
    ...op.end,
  ];
}

/** Zeroes `bytes` bytes (a multiple of 8) at the pointer in local `ptr`, using local `k`. */
function zero(ptr: number, bytes: number, k: number): number[] {
  return [
    ...op.i32(0),
    ...op.set(k),
    ...forLoop(k, bytes, 8, [
      ...op.get(ptr),
      ...op.get(k),
      ...op.add,
      ...op.f64Zero,
      ...op.f64Store,
    ]),
  ];
}

/**
 * dst[c .. c+pairs) += s · src[c ..], pairwise over a row of `rowBytes` bytes, then the odd last
 * element: locals dst, src (pointers), s (v128 splat), c, limit (scratch), rowBytes.
 */
function axpyRow(dst: number, src: number, s: number, c: number, limit: number, rowBytes: number) {
  const at = (base: number) => [...op.get(base), ...op.get(c), ...op.add];
  return [
    ...op.i32(0),
    ...op.set(c),
    ...op.get(rowBytes),
    ...op.i32(15),
    ...op.sub,
    ...op.set(limit), // pairs while c < rowBytes − 15, i.e. c + 16 ≤ rowBytes
    ...forLoop(c, limit, 16, [
      ...at(dst),
      ...at(dst),
      ...op.vLoad,
      ...op.get(s),
      ...at(src),
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
    ...at(dst),
    ...at(dst),
    ...op.f64Load,
    ...op.get(s),
    ...op.lane0,
    ...at(src),
    ...op.f64Load,
    ...op.f64Mul,
    ...op.f64Add,
    ...op.f64Store,
    ...op.end,
  ];
}

function axpyRowsBody(): number[] {
  // params: 0 m, 1 x, 2 out, 3 L; locals: 4 rowBytes, 5 r, 6 c, 7 limit, 8 rowPtr, 9 s(v128), 10 rEnd
  const [m, x, out, L, rowBytes, r, c, limit, rowPtr, s, rEnd] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
  return [
    ...op.get(L),
    ...op.i32(3),
    ...op.shl,
    ...op.set(rowBytes),
    ...zero(out, rowBytes, c),
    ...op.get(m),
    ...op.set(rowPtr),
    ...op.i32(0),
    ...op.set(r),
    ...op.get(rowBytes),
    ...op.set(rEnd),
    ...forLoop(r, rEnd, 8, [
      ...op.get(x),
      ...op.get(r),
      ...op.add,
      ...op.f64Load,
      ...op.splat,
      ...op.set(s),
      ...axpyRow(out, rowPtr, s, c, limit, rowBytes),
      ...op.get(rowPtr),
      ...op.get(rowBytes),
      ...op.add,
      ...op.set(rowPtr),
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
    ...op.get(L),
    ...op.i32(3),
    ...op.shl,
    ...op.set(rowBytes),
    ...op.get(L),
    ...op.get(rowBytes),
    ...op.mul,
    ...op.set(total),
    ...zero(out, total, c),
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
      ...op.get(src),
      ...op.get(right),
      ...op.add,
      ...op.set(src),
      ...op.get(out),
      ...op.set(dst),
      ...op.i32(0),
      ...op.set(a),
      ...forLoop(a, rowBytes, 8, [
        ...op.get(leftRow),
        ...op.get(a),
        ...op.add,
        ...op.f64Load,
        ...op.splat,
        ...op.set(s),
        ...axpyRow(dst, src, s, c, limit, rowBytes),
        ...op.get(dst),
        ...op.get(rowBytes),
        ...op.add,
        ...op.set(dst),
      ]),
    ]),
    // out ∘= w
    ...op.i32(0),
    ...op.set(c),
    ...forLoop(c, total, 8, [
      ...op.get(out),
      ...op.get(c),
      ...op.add,
      ...op.get(out),
      ...op.get(c),
      ...op.add,
      ...op.f64Load,
      ...op.get(w),
      ...op.get(c),
      ...op.add,
      ...op.f64Load,
      ...op.f64Mul,
      ...op.f64Store,
    ]),
  ];
}

/** base + 4·index: the address of an int32 element. */
function int32At(base: number, index: number): number[] {
  return [...op.get(base), ...op.get(index), ...op.i32(2), ...op.shl, ...op.add];
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
      ...op.i32(4),
      ...op.add,
      ...op.i32Load,
      ...op.set(kEnd),
      ...forLoop(k, kEnd, 1, [
        ...int32At(p.ids, k),
        ...op.i32Load,
        ...op.set(a),
        ...int32At(p.attrOffsets, a),
        ...op.i32Load,
        ...op.set(f),
        ...int32At(p.attrOffsets, a),
        ...op.i32(4),
        ...op.add,
        ...op.i32Load,
        ...op.set(fEnd),
        ...forLoop(f, fEnd, 1, inner({ row, f, ptr })),
      ]),
      ...op.get(row),
      ...op.get(p.L),
      ...op.i32(3),
      ...op.shl,
      ...op.add,
      ...op.set(row),
    ]),
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
    ...zero(unary, bytes + 8, bytes),
    ...sweepNest(params, 9, ({ row, f, ptr }) => [
      // unary[row + 8·labels[f]] += w[f]
      ...int32At(labels, f),
      ...op.i32Load,
      ...op.i32(3),
      ...op.shl,
      ...op.get(row),
      ...op.add,
      ...op.tee(ptr),
      ...op.get(ptr),
      ...op.f64Load,
      ...op.get(w),
      ...op.get(f),
      ...op.i32(3),
      ...op.shl,
      ...op.add,
      ...op.f64Load,
      ...op.f64Add,
      ...op.f64Store,
    ]),
  ];
}

function gradientSweepBody(): number[] {
  // params: 0 offsets, 1 ids, 2 attrOffsets, 3 labels, 4 grad, 5 residual, 6 from, 7 to, 8 L,
  // 9 scale (f64); locals 10…
  const params = { offsets: 0, ids: 1, attrOffsets: 2, rows: 5, from: 6, to: 7, L: 8 };
  const [labels, grad, scale] = [3, 4, 9];
  return sweepNest(params, 10, ({ row, f, ptr }) => [
    // grad[f] += scale · residual[row + 8·labels[f]]
    ...op.get(grad),
    ...op.get(f),
    ...op.i32(3),
    ...op.shl,
    ...op.add,
    ...op.tee(ptr),
    ...op.get(ptr),
    ...op.f64Load,
    ...op.get(scale),
    ...int32At(labels, f),
    ...op.i32Load,
    ...op.i32(3),
    ...op.shl,
    ...op.get(row),
    ...op.add,
    ...op.f64Load,
    ...op.f64Mul,
    ...op.f64Add,
    ...op.f64Store,
  ]);
}

function f64Bytes(value: number): number[] {
  return Array.from(new Uint8Array(Float64Array.of(value).buffer));
}

/** v128.const with the same f64 in both lanes. */
function splatConst(value: number): number[] {
  const b = f64Bytes(value);
  return [0xfd, 0x0c, ...b, ...b];
}

const simdOp = {
  f64x2Sub: [0xfd, 0xf1, 0x01],
  f64x2Max: [0xfd, 0xf5, 0x01],
  f64x2Ge: [0xfd, 0x4c],
  f64x2Nearest: [0xfd, 0x94, 0x01],
  i32x4TruncSatF64x2Zero: [0xfd, 0xfc, 0x01],
  i64x2ExtendLowI32x4: [0xfd, 0xc7, 0x01],
  i64x2Add: [0xfd, 0xce, 0x01],
  i64x2Shl: [0xfd, 0xcb, 0x01],
  v128And: [0xfd, 0x4e],
};

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
  const horner: number[] = [...splatConst(EXP_COEFFICIENTS[0]!), ...op.set(p)];
  for (const c of EXP_COEFFICIENTS.slice(1)) {
    horner.push(...op.get(p), ...op.get(r), ...op.vMul, ...splatConst(c), ...op.vAdd, ...op.set(p));
  }
  return [
    ...op.get(ptr),
    ...op.set(at),
    ...op.get(ptr),
    ...op.get(pairs),
    ...op.i32(4),
    ...op.shl,
    ...op.add,
    ...op.set(end),
    ...forLoop(at, end, 16, [
      ...op.get(at),
      ...op.vLoad,
      ...op.set(x),
      // k = nearest(max(x, −708) / ln 2); the clamp keeps −∞ out of the integer conversion
      ...op.get(x),
      ...splatConst(-708),
      ...simdOp.f64x2Max,
      ...op.tee(r),
      ...splatConst(1 / Math.LN2),
      ...op.vMul,
      ...simdOp.f64x2Nearest,
      ...op.set(k),
      // r = (x − k·ln2_hi) − k·ln2_lo
      ...op.get(r),
      ...op.get(k),
      ...splatConst(LN2_HI),
      ...op.vMul,
      ...simdOp.f64x2Sub,
      ...op.get(k),
      ...splatConst(LN2_LO),
      ...op.vMul,
      ...simdOp.f64x2Sub,
      ...op.set(r),
      ...horner,
      // store: p · 2^k (exponent bits (k + 1023) << 52), lanes with x < −708 (or NaN) zeroed
      ...op.get(at),
      ...op.get(p),
      ...op.get(k),
      ...simdOp.i32x4TruncSatF64x2Zero,
      ...simdOp.i64x2ExtendLowI32x4,
      ...splatI64(1023),
      ...simdOp.i64x2Add,
      ...op.i32(52),
      ...simdOp.i64x2Shl,
      ...op.vMul,
      ...op.get(x),
      ...splatConst(-708),
      ...simdOp.f64x2Ge,
      ...simdOp.v128And,
      ...op.vStore,
    ]),
  ];
}

/** v128.const with the same i64 in both lanes (small non-negative values). */
function splatI64(value: number): number[] {
  const b = Array.from(new Uint8Array(BigInt64Array.of(BigInt(value)).buffer));
  return [0xfd, 0x0c, ...b, ...b];
}

function section(id: number, payload: number[]): number[] {
  return [id, ...uleb(payload.length), ...payload];
}

function vector(items: number[][]): number[] {
  return [...uleb(items.length), ...items.flat()];
}

function name(text: string): number[] {
  const bytes = Array.from(new TextEncoder().encode(text));
  return [...uleb(bytes.length), ...bytes];
}

function body(locals: Array<[number, number]>, code: number[]): number[] {
  const content = [
    ...vector(locals.map(([count, type]) => [...uleb(count), type])),
    ...code,
    ...op.end,
  ];
  return [...uleb(content.length), ...content];
}

function assemble(): Uint8Array<ArrayBuffer> {
  const types = vector([
    [0x60, ...vector([[I32], [I32], [I32], [I32]]), 0x00],
    [0x60, ...vector([[I32], [I32], [I32], [I32], [I32], [I32]]), 0x00],
    [0x60, ...vector([[I32], [I32], [I32], [I32], [I32], [I32], [I32], [I32], [I32]]), 0x00],
    [0x60, ...vector([[I32], [I32], [I32], [I32], [I32], [I32], [I32], [I32], [I32], [F64]]), 0x00],
    [0x60, ...vector([[I32], [I32]]), 0x00],
  ]);
  const imports = vector([[...name("env"), ...name("memory"), 0x02, 0x00, 0x01]]);
  const functions = vector([[0x00], [0x01], [0x02], [0x03], [0x04]]);
  const exports = vector([
    [...name("axpyRows"), 0x00, 0x00],
    [...name("outerSum"), 0x00, 0x01],
    [...name("scoreSweep"), 0x00, 0x02],
    [...name("gradientSweep"), 0x00, 0x03],
    [...name("expPairs"), 0x00, 0x04],
  ]);
  const code = vector([
    body(
      [
        [5, I32],
        [1, V128],
        [1, I32],
      ],
      axpyRowsBody(),
    ),
    body(
      [
        [7, I32],
        [1, V128],
        [2, I32],
      ],
      outerSumBody(),
    ),
    body([[9, I32]], scoreSweepBody()),
    body([[8, I32]], gradientSweepBody()),
    body(
      [
        [2, I32],
        [4, V128],
      ],
      expPairsBody(),
    ),
  ]);
  return Uint8Array.from([
    0x00,
    0x61,
    0x73,
    0x6d,
    0x01,
    0x00,
    0x00,
    0x00,
    ...section(1, types),
    ...section(2, imports),
    ...section(3, functions),
    ...section(7, exports),
    ...section(10, code),
  ]);
}

export interface SimdKernels {
  readonly memory: WebAssembly.Memory;
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

let compiled: WebAssembly.Module | null | undefined;

/** A fresh instance with its own memory of `pages` 64 KiB pages, or null without WASM SIMD. */
export function instantiateSimd(pages: number): SimdKernels | null {
  if (compiled === undefined) {
    compiled = null;
    try {
      if (typeof WebAssembly === "object") {
        const bytes = assemble();
        if (WebAssembly.validate(bytes)) compiled = new WebAssembly.Module(bytes);
      }
    } catch {
      compiled = null;
    }
  }
  if (compiled === null) return null;
  const memory = new WebAssembly.Memory({ initial: pages });
  const instance = new WebAssembly.Instance(compiled, { env: { memory } });
  const e = instance.exports as unknown as Omit<SimdKernels, "memory">;
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
export function simdModuleBytes(): Uint8Array<ArrayBuffer> {
  return assemble();
}
