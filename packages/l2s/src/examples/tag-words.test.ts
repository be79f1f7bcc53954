import { expect, it } from "vitest";

it("the README's example runs and tags as it says", async () => {
  const { tags } = await import("./tag-words.js");
  expect(tags).toEqual(["DET", "NOUN", "VERB"]);
});
