import { type AtomicFile, openAtomicFile } from "@lagrange/core/node";
import type { Sentence } from "@lagrange/datasets";

/** Where results go: standard output, or a file written atomically (nothing partial on failure). */
export interface Output {
  write(text: string): Promise<void>;
  /** Commits the file (standard output: nothing to do). */
  close(): Promise<void>;
  /** Drops a partial file. */
  abort(): Promise<void>;
}

export async function openOutput(path: string | undefined): Promise<Output> {
  if (path === undefined || path === "-") {
    return {
      write: (text) =>
        new Promise<void>((resolve, reject) => {
          if (process.stdout.write(text)) return resolve();
          // Back-pressure: wait for the drain, and drop both listeners whichever comes first.
          const drained = () => {
            process.stdout.off("error", failed);
            resolve();
          };
          const failed = (error: Error) => {
            process.stdout.off("drain", drained);
            reject(error);
          };
          process.stdout.once("drain", drained).once("error", failed);
        }),
      close: async () => {},
      abort: async () => {},
    };
  }
  const file: AtomicFile = await openAtomicFile(path);
  return {
    write: (text) => file.write(text),
    close: () => file.commit(),
    abort: () => file.abort(),
  };
}

/**
 * One output line per token: the input's columns (for inline formats: token and gold label) and
 * the predicted label last, so gold is second-to-last as conlleval expects.
 */
export function conllLines(sentence: Sentence, predicted: readonly string[]): string {
  const { columns, tokens } = sentence;
  let text = "";
  for (let t = 0; t < tokens.length; t++) {
    let line = "";
    for (const column of columns) line += `${column[t]} `;
    text += `${line}${predicted[t]}\n`;
  }
  return `${text}\n`;
}
