/**
 * Runs a sequence's half-steps in the WebAssembly SIMD kernel: the factors and the kernel are
 * copied into its memory once per sequence (O(n·L), against O(k·n·L²) of projections) and back
 * after the last half-step.
 */
import type { HalfStepper, StepperWorkspace } from "./half-stepper.js";
import { type IbpSimdKernel, instantiateIbpSimd } from "./simd.js";

const PAGE = 65536;

export class SimdStepper implements HalfStepper {
  #kernel: IbpSimdKernel;
  #kPtr = 0;
  #xPtr = 0;
  #yPtr = 0;
  #aPtr = 0;
  #bPtr = 0;
  #outPtr = 0;
  #kStride = 0;
  #f64: Float64Array;

  private constructor(kernel: IbpSimdKernel) {
    this.#kernel = kernel;
    this.#f64 = new Float64Array(kernel.memory.buffer);
  }

  /** A stepper, or null where WebAssembly SIMD is missing. */
  static create(): SimdStepper | null {
    const kernel = instantiateIbpSimd(1);
    return kernel === null ? null : new SimdStepper(kernel);
  }

  begin(ws: StepperWorkspace, n: number): void {
    const L = ws.L;
    const LL = L * L;
    const kernelLength = ws.sharedKernel ? LL : (n - 1) * LL;
    const nodes = (n - 1) * L;
    // Layout in doubles: kernel, x, y, a, b, out.
    const doubles = kernelLength + 2 * nodes + 2 * L + 1;
    const bytes = 8 * doubles;
    const have = this.#kernel.memory.buffer.byteLength;
    if (have < bytes) {
      // A fresh instance of the size needed (at least twice the old): memories are reserved at
      // their size, not grown (see instantiateKernel). The module compiled once already.
      this.#kernel = instantiateIbpSimd(Math.max(Math.ceil(bytes / PAGE), (2 * have) / PAGE))!;
      this.#f64 = new Float64Array(this.#kernel.memory.buffer);
    }
    const f = this.#f64;
    let at = 0;
    this.#kPtr = 0;
    f.set(ws.kernel.subarray(0, kernelLength), at);
    at += kernelLength;
    this.#xPtr = 8 * at;
    f.set(ws.rowScale.subarray(0, nodes), at);
    at += nodes;
    this.#yPtr = 8 * at;
    f.set(ws.colScale.subarray(0, nodes), at);
    at += nodes;
    this.#aPtr = 8 * at;
    at += L;
    this.#bPtr = 8 * at;
    at += L;
    this.#outPtr = 8 * at;
    this.#kStride = ws.sharedKernel ? 0 : 8 * LL;
  }

  step(ws: StepperWorkspace, first: number, n: number): number {
    const count = n - 2 >= first ? ((n - 2 - first) >> 1) + 1 : 0;
    let complete = true;
    for (let c = 0; c < count; c++) {
      const p = first + 2 * c;
      if (ws.projected[p - 1] === 0 || ws.projected[p] === 0) complete = false;
      ws.projected[p - 1] = 1;
      ws.projected[p] = 1;
    }
    this.#kernel.halfStep(
      this.#kPtr,
      this.#xPtr,
      this.#yPtr,
      this.#aPtr,
      this.#bPtr,
      this.#outPtr,
      ws.L,
      this.#kStride,
      first,
      count,
    );
    const v = this.#f64[this.#outPtr / 8]!;
    if (Number.isNaN(v)) return v;
    return complete ? v : -1;
  }

  end(ws: StepperWorkspace, n: number): void {
    const nodes = (n - 1) * ws.L;
    const f = this.#f64;
    ws.rowScale.set(f.subarray(this.#xPtr / 8, this.#xPtr / 8 + nodes));
    ws.colScale.set(f.subarray(this.#yPtr / 8, this.#yPtr / 8 + nodes));
  }
}
