/**
 * `@lagrange/core/wasm`: the one WebAssembly assembler of the project. Numerical kernels that V8's
 * typed-array checks slow down (chain-crf's SIMD forward-backward, mincut's max-flow) are emitted
 * from TypeScript with it: no binary blob, no build step.
 */
export {
  advance,
  assembleModule,
  type CompiledKernel,
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
  sleb,
  splatF64,
  splatI64,
  uleb,
  V128,
  zeroBytes,
} from "./assembler.js";
