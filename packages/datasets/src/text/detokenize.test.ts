import { describe, expect, it } from "vitest";
import { detokenize } from "./detokenize.js";

describe("detokenize", () => {
  it.each([
    [["He", "said", ",", '"', "I", "do", "n't", "!", '"', "("], 'He said, "I don\'t!" ('],
    [
      ["Bush", "'s", "$", "49", "(", "U.S.", ")", "rose", "3", "%", "."],
      "Bush's $49 (U.S.) rose 3%.",
    ],
    [["``", "Hi", "''", "the", "players", "'", "C$", "5", "..."], "``Hi'' the players' C$5..."],
    [["CRICKET", "-", "LEICESTERSHIRE", "TAKE", "OVER"], "CRICKET - LEICESTERSHIRE TAKE OVER"],
  ])("%j", (tokens, text) => {
    const result = detokenize(tokens);
    expect(result.text).toBe(text);
    expect(result.tokens.map((t) => t.text)).toEqual(tokens);
    for (const t of result.tokens) expect(text.slice(t.start, t.end)).toBe(t.text);
  });

  it("gives nothing for no tokens", () => {
    expect(detokenize([])).toEqual({ text: "", tokens: [] });
  });
});
