import { strayCarriageReturnError } from "../formats/io.js";

/**
 * Refuses a text held whole whose lines end in CR alone (an old Mac file) or that holds a CR
 * inside a line, with the data readers' own message (file:line); CRLF is accepted. A side input
 * read whole (template, lexicon, clusters, constraints, graph, predictions) is otherwise split on
 * LF only, and one CR-only line would be the whole file: a silent misreading.
 */
export function checkLineEndings(text: string, file: string): void {
  for (let at = text.indexOf("\r"); at >= 0; at = text.indexOf("\r", at + 1)) {
    // CRLF; a CR that ends the text is taken as the half of one, as the data readers take it.
    if (at === text.length - 1 || text.charCodeAt(at + 1) === 0x0a) continue;
    throw strayCarriageReturnError(file, lineAt(text, at));
  }
}

/** The 1-based line of offset `at` (only on the error path). */
function lineAt(text: string, at: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i >= 0 && i < at; i = text.indexOf("\n", i + 1)) line++;
  return line;
}
