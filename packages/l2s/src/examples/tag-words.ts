import { SearchPredictor, type SearchTask, trainSearch } from "../index.js";

const TAGS = ["DET", "NOUN", "VERB"];

// The task is one ordinary function: one predict per word, conditioned on the previous decision,
// and a loss for every wrong tag. The same code trains and predicts.
const tagger: SearchTask<{ words: string[]; tags?: string[] }, string[]> = {
  name: "tag-words",
  actionSpaces: [{ name: "tag", actions: TAGS.length }],
  run(sentence, search) {
    return sentence.words.map((word, i) => {
      const gold = sentence.tags === undefined ? undefined : TAGS.indexOf(sentence.tags[i]!);
      const tag = search.predict({
        features: (f) => {
          f.add(`w=${word}`);
          f.add(`suffix=${word.slice(-2)}`);
        },
        ...(gold === undefined ? {} : { reference: gold }),
        conditionOn: i > 0 ? [i - 1] : [],
        tag: i,
      });
      if (gold !== undefined && tag !== gold) search.loss(1);
      return TAGS[tag]!;
    });
  },
};

const corpus = [
  { words: ["the", "dog", "runs"], tags: ["DET", "NOUN", "VERB"] },
  { words: ["a", "cat", "sleeps"], tags: ["DET", "NOUN", "VERB"] },
  { words: ["the", "cat", "runs"], tags: ["DET", "NOUN", "VERB"] },
];
// LOLS-style: learned roll-in, a deviation costed by the reference's completion.
const { policy } = await trainSearch(tagger, corpus, {
  passes: 5,
  rollIn: "learned",
  rollOut: "reference",
});
export const tags = new SearchPredictor(tagger, policy).predict({ words: ["a", "dog", "sleeps"] });
console.log(tags); // [ 'DET', 'NOUN', 'VERB' ]
