import { describe, expect, it } from "vitest";
import { parseConllu } from "../formats/conllu.js";
import { checkDependencyHeads } from "./dependency-heads.js";

const row = (id: string, head: string) => `${id}\tw${id}\t_\tX\t_\t_\t${head}\tdep\t_\t_`;

describe("checkDependencyHeads", () => {
  it("accepts heads 0…n and names the word's own line for one that is not, ranges counted", () => {
    const good = parseConllu(`# sent_id = 1\n${row("1", "2")}\n${row("2", "0")}\n\n`);
    expect(() => checkDependencyHeads(good[0]!, "gold")).not.toThrow();
    const text = `# sent_id = 1\n1-2\tab\t_\t_\t_\t_\t_\t_\t_\t_\n${row("1", "0")}\n${row("2", "3")}\n\n`;
    const [bad] = parseConllu(text);
    expect(() => checkDependencyHeads(bad!, "predicted")).toThrow(
      /:4:.*predicted HEAD "3": expected an integer 0…2/,
    );
  });

  it("says a word has no head to score when HEAD is _", () => {
    const [none] = parseConllu(`${row("1", "_")}\n\n`);
    expect(() => checkDependencyHeads(none!, "gold")).toThrow(/gold HEAD _: this word has no head/);
  });
});
