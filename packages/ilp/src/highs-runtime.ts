import { LagrangeError } from "@lagrange/core";
import highsModule, { type Highs } from "highs";

type HighsLoader = () => Promise<Highs>;
/**
 * highs ships CommonJS types (`export default` in a `.d.ts` of a CommonJS package) beside a real ES
 * module: under NodeNext, TypeScript sees the default import as the module object while Node
 * loads the ES build whose default is the loader. Accept both shapes.
 */
const loadHighs: HighsLoader =
  typeof highsModule === "function"
    ? (highsModule as unknown as HighsLoader)
    : (highsModule as unknown as { default: HighsLoader }).default;

let runtime: Highs | undefined;
let loading: Promise<Highs> | undefined;

/**
 * Loads HiGHS (WebAssembly, in-process) once per process. Loading is asynchronous (the WASM module
 * is compiled, ~80 ms in Node) while every solve after it is synchronous, so decoders built on it
 * are prepared once (`DecoderRegistry.prepare`) and then decode like any other.
 */
export function loadHighsRuntime(): Promise<Highs> {
  if (runtime !== undefined) return Promise.resolve(runtime);
  loading ??= loadHighs().then(
    (loaded: Highs) => {
      runtime = loaded;
      return loaded;
    },
    (error: unknown) => {
      loading = undefined;
      throw new LagrangeError(
        "unavailable",
        `cannot load the HiGHS solver (WebAssembly): ${(error as Error).message}`,
        { cause: error },
      );
    },
  );
  return loading as Promise<Highs>;
}

/** The loaded runtime; a usage error when nothing awaited {@link loadHighsRuntime} first. */
export function highsRuntime(): Highs {
  if (runtime === undefined) {
    throw new LagrangeError(
      "usage",
      "the HiGHS solver is not loaded: await prepareIlp() (or registry.prepare(<decoder>)) before decoding",
    );
  }
  return runtime;
}

/** Loads HiGHS so that the ILP decoders and solvers can run synchronously. */
export async function prepareIlp(): Promise<void> {
  await loadHighsRuntime();
}
