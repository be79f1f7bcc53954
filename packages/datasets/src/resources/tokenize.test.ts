import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { splitSentences, tokenizeText } from "./tokenize.js";

describe("tokenizeText", () => {
  it.each([
    [
      "The Prime Minister's office said (on Monday) it would.",
      "The Prime Minister 's office said ( on Monday ) it would .",
    ],
    ["They don't know; we can't, won't.", "They do n't know ; we ca n't , wo n't ."],
    [
      "The U.S. economy grew 3.5% to $1,000.50 in Jan. 2006!",
      "The U.S. economy grew 3.5% to $ 1,000.50 in Jan. 2006 !",
    ],
    ['He said: "Mr. Smith isn\'t here."', 'He said : " Mr. Smith is n\'t here . "'],
    [
      "freedom--or retreat... and the Americans' homes",
      "freedom -- or retreat ... and the Americans ' homes",
    ],
    ["America’s “values” — the ’80s", "America ’s “ values ” — the ’80s"],
    ["460°C, e.g. heated", "460°C , e.g. heated"],
    ["'Hello,' she said.", "' Hello , ' she said ."],
  ])("%s", (text, expected) => {
    expect(tokenizeText(text).join(" ")).toBe(expected);
  });

  it("only splits: the tokens are the text's non-space characters, none empty, none with a space", () => {
    const chars = fc.constantFrom(
      ..."aZ09.,;:!?'’\"“”()[]$-–—…/%&n't s".split(""),
      "n't",
      "'s",
      "U.S.",
      "...",
      "--",
      "Mr.",
      " ",
      "\t",
    );
    fc.assert(
      fc.property(fc.array(chars, { maxLength: 40 }), (parts) => {
        const text = parts.join("");
        const tokens = tokenizeText(text);
        expect(tokens.join("")).toBe(text.replace(/\s+/g, ""));
        for (const token of tokens) {
          expect(token).not.toBe("");
          expect(token).not.toMatch(/\s/);
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe("splitSentences", () => {
  it("cuts after end punctuation (and closing quotes) before a capital, a digit or an opener", () => {
    const tokens = tokenizeText(
      'He left. Then "Why?" she asked. 1945 was over. the end... And Mr. Smith came. (It rained.) Done',
    );
    expect(splitSentences(tokens).map((s) => s.join(" "))).toEqual([
      "He left .",
      'Then " Why ? " she asked .',
      "1945 was over . the end ...",
      "And Mr. Smith came .",
      "( It rained . )",
      "Done",
    ]);
  });

  it("keeps every token in order and makes no empty sentence", () => {
    const token = fc.constantFrom(".", "?", "!", "...", '"', ")", "The", "the", "1945", "(", "x");
    fc.assert(
      fc.property(fc.array(token, { maxLength: 30 }), (tokens) => {
        const sentences = splitSentences(tokens);
        expect(sentences.flat()).toEqual(tokens);
        for (const s of sentences) expect(s.length).toBeGreaterThan(0);
      }),
      { numRuns: 300 },
    );
  });
});
