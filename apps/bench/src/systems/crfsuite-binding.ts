import { createRequire } from "node:module";

/** The part of the npm binding (`crfsuite` 1.0.1) used here. */
export interface CrfsuiteBinding {
  Trainer: new (options?: {
    debug?: boolean;
  }) => {
    set_params(options: Record<string, string>): void;
    append(xseq: string[][], yseq: string[]): void;
    train(modelPath: string): number;
  };
  Tagger: new () => {
    open(modelPath: string): boolean;
    close(): boolean;
    /** The labels (the package's .d.ts claims `{ probability, result }`; the C++ returns the array). */
    tag(xseq: string[][]): string[];
  };
}

/** The binding, or null where its native build is missing (an optional dependency). */
export function loadCrfsuiteBinding(): CrfsuiteBinding | null {
  try {
    return createRequire(import.meta.url)("crfsuite") as CrfsuiteBinding;
  } catch {
    return null;
  }
}
