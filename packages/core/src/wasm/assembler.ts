/**
 * A minimal WebAssembly assembler: emitters for the instructions the kernels use, a few idioms
 * (counted loops, address arithmetic, splatted constants) and the binary module layout. Kernels
 * written with it stay readable TypeScript, with no binary blob or build step.
 *
 * Every emitter returns the instruction bytes; locals are referred to by index.
 */

export const I32 = 0x7f;
export const V128 = 0x7b;
export const F64 = 0x7c;

/** Unsigned LEB128: how the binary format writes counts, sizes and indices. */
export function uleb(value: number): number[] {
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

/** Signed LEB128: how the binary format writes integer constants. */
export function sleb(value: number): number[] {
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

/** Instruction emitters; loads and stores are aligned (int32: 4, f64 and v128: 8), offset 0. */
export const op = {
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
  f64: (v: number) => [0x44, ...f64Bytes(v)],
  f64Sub: [0xa1],
  f64Div: [0xa3],
  f64Sqrt: [0x9f],
  f64Abs: [0x99],
  f64Max: [0xa5],
  f64Eq: [0x61],
  f64Lt: [0x63],
  f64Gt: [0x64],
  and: [0x71],
  ne: [0x47],
  xor: [0x73],
  shrU: [0x76],
  if: [0x04, 0x40],
  else: [0x05],
  return: [0x0f],
  lane1: [0xfd, 0x21, 0x01],
  vLoad: [0xfd, 0x00, 0x03, 0x00],
  vStore: [0xfd, 0x0b, 0x03, 0x00],
  splat: [0xfd, 0x14],
  lane0: [0xfd, 0x21, 0x00],
  vAdd: [0xfd, 0xf0, 0x01],
  vMul: [0xfd, 0xf2, 0x01],
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

/** `for (; a < b; a += step) body` with a and b locals; step a constant. */
export function forLoop(counter: number, limit: number, step: number, body: number[]): number[] {
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

/** `for (counter = 0; counter < limit; counter += step) body`: forLoop from zero. */
export function countUp(counter: number, limit: number, step: number, body: number[]): number[] {
  return [...op.i32(0), ...op.set(counter), ...forLoop(counter, limit, step, body)];
}

/** Pushes local a + local b (a pointer plus a byte offset). */
export function localSum(a: number, b: number): number[] {
  return [...op.get(a), ...op.get(b), ...op.add];
}

/** local pointer += local bytes. */
export function advance(pointer: number, bytes: number): number[] {
  return [...localSum(pointer, bytes), ...op.set(pointer)];
}

/** Pushes local value · 2^bits (an element count as bytes). */
export function shiftLeft(value: number, bits: number): number[] {
  return [...op.get(value), ...op.i32(bits), ...op.shl];
}

/** base + 4·index: the address of an int32 element. */
export function int32At(base: number, index: number): number[] {
  return [...op.get(base), ...shiftLeft(index, 2), ...op.add];
}

/** Pushes the f64 at local base + local offset. */
export function f64At(base: number, offset: number): number[] {
  return [...localSum(base, offset), ...op.f64Load];
}

/** Pushes the sum of v128 local v's two f64 lanes. */
export function laneSum(v: number): number[] {
  return [...op.get(v), ...op.lane0, ...op.get(v), ...op.lane1, ...op.f64Add];
}

/** Pushes 1 when f64 local x is positive and finite (0 < x < ∞), else 0 (NaN included). */
export function positiveFinite(x: number): number[] {
  return [
    ...op.get(x),
    ...op.f64(0),
    ...op.f64Gt,
    ...op.get(x),
    ...op.f64(Number.POSITIVE_INFINITY),
    ...op.f64Lt,
    ...op.and,
  ];
}

/** Zeroes `bytes` bytes (a multiple of 8) at the pointer in local `ptr`, using local `k`. */
export function zeroBytes(ptr: number, bytes: number, k: number): number[] {
  return countUp(k, bytes, 8, [...localSum(ptr, k), ...op.f64Zero, ...op.f64Store]);
}

function f64Bytes(value: number): number[] {
  return Array.from(new Uint8Array(Float64Array.of(value).buffer));
}

/** v128.const with the same f64 in both lanes. */
export function splatF64(value: number): number[] {
  const b = f64Bytes(value);
  return [0xfd, 0x0c, ...b, ...b];
}

/** v128.const with the same i64 in both lanes (small non-negative values). */
export function splatI64(value: number): number[] {
  const b = Array.from(new Uint8Array(BigInt64Array.of(BigInt(value)).buffer));
  return [0xfd, 0x0c, ...b, ...b];
}

/** One exported function without results. */
export interface FunctionDefinition {
  readonly name: string;
  /** Value types of the parameters (locals 0 … params.length − 1). */
  readonly params: readonly number[];
  /** Further locals as runs of [count, type], numbered on from the parameters. */
  readonly locals: ReadonlyArray<readonly [count: number, type: number]>;
  readonly code: number[];
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

function body(locals: FunctionDefinition["locals"], code: number[]): number[] {
  const content = [
    ...vector(locals.map(([count, type]) => [...uleb(count), type])),
    ...code,
    ...op.end,
  ];
  return [...uleb(content.length), ...content];
}

/**
 * A module importing its memory as `env.memory` (at least one page) and exporting `functions`
 * under their names, each with a type of its own.
 */
export function assembleModule(functions: readonly FunctionDefinition[]): Uint8Array {
  const types = vector(
    functions.map((f) => [0x60, ...vector(f.params.map((type) => [type])), 0x00]),
  );
  const imports = vector([[...name("env"), ...name("memory"), 0x02, 0x00, 0x01]]);
  const declarations = vector(functions.map((_, index) => uleb(index)));
  const exports = vector(functions.map((f, index) => [...name(f.name), 0x00, ...uleb(index)]));
  const code = vector(functions.map((f) => body(f.locals, f.code)));
  return Uint8Array.from([
    ...[0x00, 0x61, 0x73, 0x6d], // "\0asm"
    ...[0x01, 0x00, 0x00, 0x00], // version 1
    ...section(1, types),
    ...section(2, imports),
    ...section(3, declarations),
    ...section(7, exports),
    ...section(10, code),
  ]);
}

/**
 * The part of the WebAssembly API the kernels use. It is typed here rather than taken from the DOM
 * lib, so that the published declarations compile without DOM (a Node project's `lib`).
 */
interface WebAssemblyApi {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => CompiledKernel;
  Memory: new (descriptor: { initial: number; maximum?: number }) => KernelMemory;
  Instance: new (
    module: CompiledKernel,
    imports: { env: { memory: KernelMemory } },
  ) => { readonly exports: object };
}

/** A compiled kernel module (a `WebAssembly.Module`). */
export interface CompiledKernel {
  readonly __compiledKernel?: never;
}

/** A kernel's linear memory (a `WebAssembly.Memory`): views are made on `buffer`. */
export interface KernelMemory {
  readonly buffer: ArrayBuffer;
  grow(deltaPages: number): number;
}

function webAssembly(): WebAssemblyApi | undefined {
  return (globalThis as { WebAssembly?: WebAssemblyApi }).WebAssembly;
}

/**
 * The compiled module of `bytes()`, assembled, validated and compiled on the first call and kept;
 * null where WebAssembly, or an instruction the module uses (SIMD), is missing. Every kernel
 * compiles through one of these, so the fallback rule is the same everywhere.
 */
export function compiledOnce(bytes: () => Uint8Array): () => CompiledKernel | null {
  let compiled: CompiledKernel | null | undefined;
  return () => {
    if (compiled === undefined) {
      compiled = null;
      try {
        const api = webAssembly();
        if (api !== undefined) {
          const code = bytes();
          if (api.validate(code)) compiled = new api.Module(code);
        }
      } catch {
        compiled = null;
      }
    }
    return compiled;
  };
}

/**
 * An instance of `module` over a fresh memory of `initialPages` 64 KiB pages (growable up to
 * `maximumPages`, default none: a kernel needing more takes a fresh instance), imported as
 * `env.memory`; its exports are the kernel's functions. V8 reserves a memory's maximum in address
 * space at once (4 GiB for a memory without one, unless its trap handler's guard regions are in
 * use, 10 GiB whatever the maximum): under an address-space limit (`ulimit -v`, where the CLI
 * turns the trap handler off) a few such memories leave none for the JavaScript heap.
 */
export function instantiateKernel<Exports extends object>(
  module: CompiledKernel,
  initialPages: number,
  maximumPages?: number,
): { readonly memory: KernelMemory; readonly exports: Exports } {
  const api = webAssembly();
  if (api === undefined) throw new Error("WebAssembly is not available here");
  const memory = new api.Memory({
    initial: initialPages,
    maximum: Math.max(initialPages, maximumPages ?? initialPages),
  });
  const instance = new api.Instance(module, { env: { memory } });
  return { memory, exports: instance.exports as Exports };
}
