/**
 * One IBP half-step in WebAssembly SIMD (two f64 lanes), emitted with core's assembler: the two
 * L×L matrix–vector products of every cluster (column sums K^T x as row-axpys, row sums K y as
 * dot products) run two lanes at a time and without V8's typed-array checks, the O(L) scalings
 * in scalar code. The same arithmetic as `projectCluster` in ibp.ts up to summation order.
 *
 *   halfStep(K, x, y, a, b, out, L, kStrideBytes, first, count): projects clusters
 *     p = first, first + 2, … (count of them) of the factors x (rows), y (columns), (n−1)·L each;
 *     block j's kernel is at K + j·kStrideBytes (0: one shared block); a, b are L-row scratch;
 *     out[0] ← the largest violation of the projected clusters' constraints before projection,
 *     or NaN when a cluster's mass underflowed (the caller re-runs the sequence in the log domain).
 */
import {
  assembleModule,
  compiledOnce,
  countUp,
  F64,
  type FunctionDefinition,
  f64At,
  I32,
  instantiateKernel,
  type KernelMemory,
  laneSum,
  localSum,
  op,
  positiveFinite,
  shiftLeft,
  V128,
  zeroBytes,
} from "@lagrange/core/wasm";

// Parameters.
const K = 0;
const X = 1;
const Y = 2;
const A = 3;
const B = 4;
const OUT = 5;
const L = 6;
const KSTRIDE = 7;
const FIRST = 8;
const COUNT = 9;
// i32 locals.
const C = 10; // cluster counter
const XI = 11; // x of block p−1 (bytes)
const YI = 12;
const XO = 13; // x of block p
const YO = 14;
const INK = 15;
const OUTK = 16;
const S = 17; // row/label counter
const T = 18; // column counter
const ROW = 19; // pointer to a kernel row
const LB = 20; // L·8
const PAIRS = 21; // (L >> 1) << 4: bytes covered two lanes at a time
const P = 22;
// f64 locals.
const XS = 23;
const AT = 24;
const BT = 25;
const Z = 26;
const IN_TOTAL = 27;
const MEASURED = 28;
const R = 29;
const INV_Z = 30;
const V = 31;
// v128 locals.
const ACC = 32;
const XSV = 33;

/** Pushes base + block + t (locals): the address of node t's factor in a block's row. */
const nodeAt = (base: number, block: number) => [...localSum(base, block), ...op.get(T), ...op.add];

/** Stores the f64 `value` at base + offset. */
const storeAt = (base: number, offset: number, value: number[]) => [
  ...localSum(base, offset),
  ...value,
  ...op.f64Store,
];

/** Whether 0 < a, b < +∞: the node has mass on both sides. */
const bothPositive = () => [...positiveFinite(AT), ...positiveFinite(BT), ...op.and];

function halfStepBody(): number[] {
  // Byte offsets: t and s count bytes (8 per label), so loops step by 8 (scalar) or 16 (pairs).
  const clusterBody = [
    // p = first + 2c; block offsets in bytes.
    ...op.get(FIRST),
    ...op.get(C),
    ...op.i32(1),
    ...op.shl,
    ...op.add,
    ...op.set(P),
    ...op.get(P),
    ...op.i32(1),
    ...op.sub,
    ...op.get(LB),
    ...op.mul,
    ...op.tee(XI),
    ...op.set(YI),
    ...op.get(P),
    ...op.get(LB),
    ...op.mul,
    ...op.tee(XO),
    ...op.set(YO),
    ...op.get(K),
    ...op.get(P),
    ...op.i32(1),
    ...op.sub,
    ...op.get(KSTRIDE),
    ...op.mul,
    ...op.add,
    ...op.set(INK),
    ...op.get(K),
    ...op.get(P),
    ...op.get(KSTRIDE),
    ...op.mul,
    ...op.add,
    ...op.set(OUTK),
    // a = 0.
    ...zeroBytes(A, LB, T),
    // a += x[s] · K[s, ·] over the rows s of block p−1 with x[s] ≠ 0.
    ...countUp(S, LB, 8, [
      ...localSum(X, XI),
      ...op.get(S),
      ...op.add,
      ...op.f64Load,
      ...op.set(XS),
      ...op.get(XS),
      ...op.f64(0),
      ...op.f64Eq,
      ...op.i32(1),
      ...op.xor,
      ...op.if,
      ...op.get(XS),
      ...op.splat,
      ...op.set(XSV),
      // ROW = INK + s·L (s is in bytes: s/8 · L·8 = s · L).
      ...op.get(INK),
      ...op.get(S),
      ...op.get(L),
      ...op.mul,
      ...op.add,
      ...op.set(ROW),
      ...countUp(T, PAIRS, 16, [
        ...localSum(A, T),
        ...localSum(A, T),
        ...op.vLoad,
        ...localSum(ROW, T),
        ...op.vLoad,
        ...op.get(XSV),
        ...op.vMul,
        ...op.vAdd,
        ...op.vStore,
      ]),
      // The odd last column.
      ...op.get(PAIRS),
      ...op.get(LB),
      ...op.ne,
      ...op.if,
      ...localSum(A, PAIRS),
      ...f64At(A, PAIRS),
      ...op.get(XS),
      ...f64At(ROW, PAIRS),
      ...op.f64Mul,
      ...op.f64Add,
      ...op.f64Store,
      ...op.end,
      ...op.end,
    ]),
    // Per node t: a_t ← a_t·y_{p−1}[t], b_t ← x_p[t]·(K_p y_p)[t]; totals and Z.
    ...op.f64(0),
    ...op.set(Z),
    ...op.f64(0),
    ...op.set(IN_TOTAL),
    ...countUp(T, LB, 8, [
      ...f64At(A, T),
      ...nodeAt(Y, YI),
      ...op.f64Load,
      ...op.f64Mul,
      ...op.set(AT),
      ...storeAt(A, T, op.get(AT)),
      ...op.get(IN_TOTAL),
      ...op.get(AT),
      ...op.f64Add,
      ...op.set(IN_TOTAL),
      // ROW = OUTK + t·L; dot(ROW, y_p) two lanes at a time.
      ...op.get(OUTK),
      ...op.get(T),
      ...op.get(L),
      ...op.mul,
      ...op.add,
      ...op.set(ROW),
      ...op.f64(0),
      ...op.splat,
      ...op.set(ACC),
      ...countUp(S, PAIRS, 16, [
        ...op.get(ACC),
        ...localSum(ROW, S),
        ...op.vLoad,
        ...localSum(Y, YO),
        ...op.get(S),
        ...op.add,
        ...op.vLoad,
        ...op.vMul,
        ...op.vAdd,
        ...op.set(ACC),
      ]),
      ...laneSum(ACC),
      ...op.set(BT),
      ...op.get(PAIRS),
      ...op.get(LB),
      ...op.ne,
      ...op.if,
      ...op.get(BT),
      ...f64At(ROW, PAIRS),
      ...localSum(Y, YO),
      ...op.get(PAIRS),
      ...op.add,
      ...op.f64Load,
      ...op.f64Mul,
      ...op.f64Add,
      ...op.set(BT),
      ...op.end,
      ...op.get(BT),
      ...nodeAt(X, XO),
      ...op.f64Load,
      ...op.f64Mul,
      ...op.set(BT),
      ...storeAt(B, T, op.get(BT)),
      ...bothPositive(),
      ...op.if,
      // √a·√b, not √(a·b): the product may underflow where both roots are representable.
      ...op.get(Z),
      ...op.get(AT),
      ...op.f64Sqrt,
      ...op.get(BT),
      ...op.f64Sqrt,
      ...op.f64Mul,
      ...op.f64Add,
      ...op.set(Z),
      ...op.end,
    ]),
    // Underflow (or overflow) of the whole cluster: NaN to the caller.
    ...positiveFinite(Z),
    ...op.i32(1),
    ...op.xor,
    ...op.if,
    ...op.get(OUT),
    ...op.f64(Number.NaN),
    ...op.f64Store,
    ...op.return,
    ...op.end,
    // The violation before projecting: |Σ a − 1| and max |a_t − b_t|.
    ...op.get(IN_TOTAL),
    ...op.f64(1),
    ...op.f64Sub,
    ...op.f64Abs,
    ...op.set(V),
    ...countUp(T, LB, 8, [
      ...op.get(V),
      ...f64At(A, T),
      ...f64At(B, T),
      ...op.f64Sub,
      ...op.f64Abs,
      ...op.f64Max,
      ...op.set(V),
    ]),
    ...op.get(MEASURED),
    ...op.get(V),
    ...op.f64Max,
    ...op.set(MEASURED),
    // Rescale: y_{p−1}[t] ·= √(b/a)/Z, x_p[t] ·= 1/(Z·√(b/a)); one-sided nodes drop out.
    ...op.f64(1),
    ...op.get(Z),
    ...op.f64Div,
    ...op.set(INV_Z),
    ...countUp(T, LB, 8, [
      ...f64At(A, T),
      ...op.set(AT),
      ...f64At(B, T),
      ...op.set(BT),
      ...bothPositive(),
      ...op.if,
      ...op.get(BT),
      ...op.get(AT),
      ...op.f64Div,
      ...op.f64Sqrt,
      ...op.set(R),
      // y
      ...nodeAt(Y, YI),
      ...nodeAt(Y, YI),
      ...op.f64Load,
      ...op.get(R),
      ...op.get(INV_Z),
      ...op.f64Mul,
      ...op.f64Mul,
      ...op.f64Store,
      // x
      ...nodeAt(X, XO),
      ...nodeAt(X, XO),
      ...op.f64Load,
      ...op.get(INV_Z),
      ...op.get(R),
      ...op.f64Div,
      ...op.f64Mul,
      ...op.f64Store,
      ...op.else,
      ...nodeAt(Y, YI),
      ...op.f64(0),
      ...op.f64Store,
      ...nodeAt(X, XO),
      ...op.f64(0),
      ...op.f64Store,
      ...op.end,
    ]),
  ];
  return [
    ...shiftLeft(L, 3),
    ...op.set(LB),
    ...op.get(L),
    ...op.i32(1),
    ...op.shrU,
    ...op.i32(4),
    ...op.shl,
    ...op.set(PAIRS),
    ...op.f64(0),
    ...op.set(MEASURED),
    ...countUp(C, COUNT, 1, clusterBody),
    ...op.get(OUT),
    ...op.get(MEASURED),
    ...op.f64Store,
  ];
}

function definitions(): FunctionDefinition[] {
  return [
    {
      name: "halfStep",
      params: [I32, I32, I32, I32, I32, I32, I32, I32, I32, I32],
      locals: [
        [13, I32],
        [9, F64],
        [2, V128],
      ],
      code: halfStepBody(),
    },
  ];
}

export interface IbpSimdKernel {
  readonly memory: KernelMemory;
  halfStep(
    K: number,
    x: number,
    y: number,
    a: number,
    b: number,
    out: number,
    L: number,
    kStrideBytes: number,
    first: number,
    count: number,
  ): void;
}

const compiledModule = compiledOnce(() => assembleModule(definitions()));

/** A kernel over its own memory of `pages` 64 KiB pages, or null without WebAssembly SIMD. */
export function instantiateIbpSimd(pages: number): IbpSimdKernel | null {
  const compiled = compiledModule();
  if (compiled === null) return null;
  const { memory, exports: e } = instantiateKernel<{ halfStep: IbpSimdKernel["halfStep"] }>(
    compiled,
    pages,
  );
  return { memory, halfStep: e.halfStep };
}

/** The module's bytes (tests check it validates). */
export function ibpSimdModuleBytes(): Uint8Array {
  return assembleModule(definitions());
}
