import type { ConlluSentence, Corpus } from "@lagrange/datasets";
import type { L2sModel, RollIn } from "@lagrange/l2s";
import {
  conlluSentences,
  heldOutTrees,
  l2sParserOf,
  scoreL2sParser,
  trainL2sParser,
} from "@lagrange/recipes";
import { openData } from "../inputs.js";
import { note, warn } from "../progress.js";
import { openHeldOut, pct, trainingRead, trainingSubset } from "./train-common.js";
import type { L2sTrainOptions } from "./train-l2s.js";
import { searchBar, searchSettings, searchText, trainingText } from "./train-l2s-search.js";

/** `--task parser`: chang2016's arc-hybrid parser on CoNLL-U. */
export async function trainParser(
  options: L2sTrainOptions,
  signal: AbortSignal | undefined,
): Promise<{ model: L2sModel; summary: string }> {
  const oracle = (options.oracle ?? "dynamic") as "dynamic" | "static";
  const tagField = (options.tagField ?? "UPOS") as "UPOS" | "XPOS";
  const labelled = options.unlabelled !== true;
  if (oracle === "static" && options.rollIn !== undefined && options.rollIn !== "reference") {
    warn(
      `--oracle static knows the gold transition sequence only: off it (--roll-in ${options.rollIn}) its reference names a valid transition, not a good one; --oracle dynamic costs every configuration exactly`,
    );
  }
  // CoNLL-U whatever the file's extension (the parser reads HEAD and DEPREL).
  const read = trainingRead(options, signal, "conllu");
  const train = trainingSubset(await openData("--data", options.data, read), options);
  const trainSentences = conlluSentences(train, "training a parser");
  const dev = await openHeldOut(options, read);
  const devTrees = dev === undefined ? undefined : goldTrees(dev, tagField);
  const rollIn: RollIn = oracle === "static" ? "reference" : "learned";
  note(
    `training an L2S arc-hybrid parser on ${trainSentences.length} sentences (${train.label}), ${oracle} oracle, ${labelled ? "labelled (heads and relations)" : "unlabelled (heads only)"}, tags from ${tagField}; ${searchText(options, "parser", rollIn, "none")}`,
  );
  const progress = searchBar("l2s");
  let trained: Awaited<ReturnType<typeof trainL2sParser>>;
  try {
    trained = await trainL2sParser(train, {
      oracle,
      labelled,
      tagField,
      ...searchSettings(options, "parser"),
      onProgress: progress.onProgress,
      ...(signal === undefined ? {} : { signal }),
    });
  } finally {
    progress.stop();
  }
  let devText = "";
  if (dev !== undefined && devTrees !== undefined) {
    if (devTrees.length === 0) {
      warn(`--dev ${dev.label}: no sentence has a gold tree (every HEAD is _): no dev scores`);
    } else {
      const { include: all, exclude: noPunct } = scoreL2sParser(
        l2sParserOf(trained.model),
        devTrees,
      );
      devText = `; dev (${dev.label}, ${devTrees.length} sentences): UAS ${pct(all.uas)}${labelled ? ` LAS ${pct(all.las)}` : ""} with punctuation, UAS ${pct(noPunct.uas)}${labelled ? ` LAS ${pct(noPunct.las)}` : ""} without`;
    }
  }
  return {
    model: trained.model,
    summary: `trained an L2S parser: ${trained.relations.length} relations${labelled ? "" : " (unlabelled: heads only)"}, ${trainingText(trained.training)}${devText}`,
  };
}

/** The held-out sentences with a gold tree (see recipes' `heldOutTrees`), saying how many were left out. */
function goldTrees(dev: Corpus, tagField: "UPOS" | "XPOS"): ConlluSentence[] {
  const { trees, total } = heldOutTrees(dev, tagField);
  if (trees.length > 0 && trees.length < total) {
    note(
      `--dev ${dev.label}: ${total - trees.length} of ${total} sentences have no gold tree (HEAD _), left out of the dev scores`,
    );
  }
  return trees;
}
