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
  sleb,
  splatF64,
  splatI64,
  uleb,
  V128,
  zeroBytes,
} from "./assembler.js";
