import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { detokenize } from "./detokenize.js";
import { segmentText } from "./segment.js";

const words = (text: string) =>
  segmentText(text)
    .flatMap((s) => s.tokens.map((t) => t.text))
    .join(" ");
const sentences = (text: string) =>
  segmentText(text).map((s) => s.tokens.map((t) => t.text).join(" "));

describe("segmentText: Penn-Treebank rules", () => {
  it.each([
    [
      "The Prime Minister's office said (on Monday) it would.",
      "The Prime Minister 's office said ( on Monday ) it would .",
    ],
    ["They don't know; we can't, won't.", "They do n't know ; we ca n't , wo n't ."],
    [
      "The U.S. economy grew 3.5% to $1,000.50 in Jan. 2006!",
      "The U.S. economy grew 3.5 % to $ 1,000.50 in Jan. 2006 !",
    ],
    ['He said: "Mr. Smith isn\'t here."', 'He said : " Mr. Smith is n\'t here . "'],
    [
      "freedom--or retreat... and the Americans' homes",
      "freedom -- or retreat ... and the Americans ' homes",
    ],
    ["America’s “values” — the ’80s", "America ’s “ values ” — the ’80s"],
    ["460°C, e.g. heated", "460°C , e.g. heated"],
    ["'Hello,' she said.", "' Hello , ' she said ."],
    [
      "West Indian all-rounder Phil Simmons won 6-2 in 1996-08-30, 1/2 a C$5.5 one-day.",
      "West Indian all-rounder Phil Simmons won 6-2 in 1996-08-30 , 1/2 a C$ 5.5 one-day .",
    ],
    ["I'm sure they'll've gone to the U.N.", "I 'm sure they 'll 've gone to the U.N."],
    ["1. Michelle Freeman (Jamaica) 12.71", "1. Michelle Freeman ( Jamaica ) 12.71"],
    ["He was 12. Then he left", "He was 12 . Then he left"],
  ])("%s", (text, expected) => {
    expect(words(text)).toBe(expected);
  });

  it("cuts sentences after end punctuation (and glued closers) before a capital, a digit or an opener", () => {
    expect(
      sentences(
        'He left. Then "Why?" she asked. 1945 was over. the end... And Mr. Smith came. (It rained.) Done',
      ),
    ).toEqual([
      "He left .",
      'Then " Why ? " she asked .',
      "1945 was over . the end ...",
      "And Mr. Smith came .",
      "( It rained . )",
      "Done",
    ]);
  });

  it("gives a quote after a sentence end to the next sentence unless glued to the end", () => {
    expect(sentences('He won. "I am happy," he said.')).toEqual([
      "He won .",
      '" I am happy , " he said .',
    ]);
    expect(sentences('He said "I won." Then he left')).toEqual([
      'He said " I won . "',
      "Then he left",
    ]);
  });

  it("always ends a sentence at a blank line, never at a single newline", () => {
    expect(sentences("LONDON 1996-08-30\n\nWest Indian won\nthe match")).toEqual([
      "LONDON 1996-08-30",
      "West Indian won the match",
    ]);
    expect(sentences("  \n\n \t ")).toEqual([]);
  });

  it("with lineBreaks sentence, ends one at every line break (CRLF too) and the same tokens", () => {
    const text =
      "SOCCER - JAPAN WIN\r\nAL-AIN 1996-12-06\nJapan began the defence of their title.\n";
    const lines = segmentText(text, { lineBreaks: "sentence" });
    expect(lines.map((s) => text.slice(s.start, s.end))).toEqual([
      "SOCCER - JAPAN WIN",
      "AL-AIN 1996-12-06",
      "Japan began the defence of their title.",
    ]);
    expect(lines.flatMap((s) => s.tokens)).toEqual(segmentText(text).flatMap((s) => s.tokens));
    expect(segmentText(text)).toHaveLength(1);
  });

  it("gives each sentence its first token's start and last token's end", () => {
    const text = "  It rained.  So what?\n";
    const [a, b] = segmentText(text);
    expect(text.slice(a!.start, a!.end)).toBe("It rained.");
    expect(text.slice(b!.start, b!.end)).toBe("So what?");
  });
});

describe("segmentText: offsets", () => {
  const piece = fc.constantFrom(
    ..."aZ09.,;:!?'’\"“”()[]{}$£#%-–—…/&`".split(""),
    "n't",
    "'s",
    "U.S.",
    "...",
    "--",
    "``",
    "''",
    "Mr.",
    "12.",
    "C$",
    " ",
    "\n",
    "\n\n",
    "\t",
    "é",
    "😀",
  );

  it("keeps every non-space character in exactly one token, in order, each the input's slice", () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), (parts) => {
        const text = parts.join("");
        const result = segmentText(text);
        let previous = 0;
        let covered = "";
        for (const sentence of result) {
          expect(sentence.tokens.length).toBeGreaterThan(0);
          expect(sentence.start).toBe(sentence.tokens[0]!.start);
          expect(sentence.end).toBe(sentence.tokens.at(-1)!.end);
          for (const token of sentence.tokens) {
            expect(token.start).toBeGreaterThanOrEqual(previous);
            expect(token.end).toBeGreaterThan(token.start);
            expect(token.text).toBe(text.slice(token.start, token.end));
            expect(token.text).not.toMatch(/\s/);
            covered += token.text;
            previous = token.end;
          }
        }
        expect(covered).toBe(text.replace(/\s+/g, ""));
      }),
      { numRuns: 1000 },
    );
  });

  it("also holds on arbitrary strings", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 60 }), (text) => {
        const tokens = segmentText(text).flatMap((s) => s.tokens);
        for (const t of tokens) expect(t.text).toBe(text.slice(t.start, t.end));
        expect(tokens.map((t) => t.text).join("")).toBe(text.replace(/\s+/g, ""));
      }),
      { numRuns: 500 },
    );
  });
});

describe("detokenize → segmentText", () => {
  const word = fc.constantFrom(
    "the",
    "Smith",
    "U.S.",
    "Mr.",
    "3.5",
    "1,000",
    "6-2",
    "all-rounder",
    "1/2",
    "Inc.",
    "O'Brien",
    "1996-08-30",
  );
  const after = fc.constantFrom(",", ".", ";", ":", "?", "!", "%", "'s", "n't", "'re", "...");
  const around = fc.constantFrom(["(", ")"], ["[", "]"], ['"', '"'], ["``", "''"]);
  const phrase = fc.oneof(
    { weight: 4, arbitrary: word.map((w) => [w]) },
    { weight: 2, arbitrary: fc.tuple(word, after).map(([w, a]) => [w, a]) },
    {
      weight: 1,
      arbitrary: fc.tuple(around, word, word).map(([[open, close], a, b]) => [open, a, b, close]),
    },
    { weight: 1, arbitrary: fc.constantFrom(["$", "49"], ["C$", "5.5"], ["--"], ["-"]) },
  );

  it("gives back the tokens, at the offsets detokenize reports", () => {
    fc.assert(
      fc.property(fc.array(phrase, { minLength: 1, maxLength: 12 }), (phrases) => {
        const gold = phrases.flat();
        const { text, tokens } = detokenize(gold);
        const predicted = segmentText(text).flatMap((s) => s.tokens);
        expect(predicted.map((t) => [t.text, t.start, t.end])).toEqual(
          tokens.map((t) => [t.text, t.start, t.end]),
        );
      }),
      { numRuns: 500 },
    );
  });
});
