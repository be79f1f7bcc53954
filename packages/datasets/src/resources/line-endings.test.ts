import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DataFormatError } from "../formats/errors.js";
import { textLines } from "../formats/io.js";
import { checkLineEndings } from "./line-endings.js";

describe("line endings of a side input held whole", () => {
  it("refuses CR-only files at line 1, a stray CR at its line; accepts LF and CRLF", () => {
    expect(() => checkLineEndings("a b\r\nc d\r\n", "t.tpl")).not.toThrow();
    expect(() => checkLineEndings("a\nb\n", "t.tpl")).not.toThrow();
    expect(() => checkLineEndings("U00:%x[0,0]\rU01:%x[1,0]\r", "t.tpl")).toThrow(
      "t.tpl:1: lines end in CR only (old Mac line endings); convert them to LF or CRLF (e.g. tr '\\r' '\\n')",
    );
    expect(attempt(() => checkLineEndings("a\nb\nc\rd\n", "x.txt"))?.line).toBe(3);
    expect(() => checkLineEndings("a\rb", "x.txt")).toThrow(/^x\.txt:1: lines end in CR only/);
  });

  it("agrees with the data readers' splitting (textLines) on every text of LF, CR and letters", () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom("a", " ", "\n", "\r", "\r\n")).map((parts) => parts.join("")),
        (text) => {
          const ours = attempt(() => checkLineEndings(text, "f"));
          const theirs = attempt(() => textLines(text, "f"));
          expect(ours?.message).toBe(theirs?.message);
        },
      ),
    );
  });
});

function attempt(run: () => unknown): DataFormatError | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    if (error instanceof DataFormatError) return error;
    throw error;
  }
}
