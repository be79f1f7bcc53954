import { expect, it } from "vitest";

it("the README example trains a Bregman CRF on partial labels and decodes with IBP", async () => {
  const { tags } = await import("./train-and-decode.js");
  expect(tags).toEqual(["DET", "NOUN", "VERB"]);
});
