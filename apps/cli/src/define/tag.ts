import type { DecoderDefinition } from "@lagrange/core";
import type { Command } from "commander";
import { Option } from "commander";
import { addDecoderFlags } from "../decoder-flags.js";
import { declareFiles } from "../files-declared.js";
import { collect, malformedOption, parseInteger } from "../options.js";
import { lazy } from "./lazy.js";
import { L2S_DEFAULT_DECODER, MAX_NBEST, parseNbest } from "./values.js";

export function defineTag(program: Command, decoders: readonly DecoderDefinition[]): void {
  const names = (fit: (d: DecoderDefinition) => boolean) =>
    decoders
      .filter(fit)
      .map((d) => d.name)
      .join(", ");
  const tag = program
    .command("tag")
    .description(
      `Label data with a model; writes the input's columns plus the predicted label. Decoders come from one registry (${names(() => true)}, and any --plugin's); constrained decoders print mean iterations, % certified and the time per phase to stderr. A general CRF (lagrange train --model general) is tagged group by group (the whole input is read first) with ${names((d) => d.accepts.patterns === true)}, or ${names((d) => d.capabilities?.exactChain === true)} for the chain alone. An L2S tagger (lagrange train --learner l2s --task pos|ner) is tagged by its own left-to-right policy (--decoder greedy, the default), or by any decoder of its scores alone (one that needs no constraints, slaves or patterns); an L2S parser model is for lagrange parse`,
    )
    .requiredOption("--model <file>", "model file")
    .option(
      "--data <spec>",
      "data to tag: a registry name[:split] (default split dev), a file path, or - (standard input); required unless --text, or --format text (which reads standard input by default)",
    )
    .option(
      "--format <format>",
      "file format for a path: conll, conllu, umass, inline; ndjson (one JSON object per line: tokens, columns?, labels?); crfsuite (CRFsuite's data format: label TAB attributes, for a model imported from CRFsuite; writes one label per line); text (raw UTF-8 text, split into sentences and Penn-Treebank tokens: entities out, see --output-format). CoNLL and NDJSON files and standard input stream",
    )
    .option(
      "--text <text>",
      "raw text to tag instead of --data (as --format text): its entities are written with their offsets",
    )
    .addOption(
      new Option(
        "--line-breaks <mode>",
        "text input: what a single line break is: space (lines wrapped inside paragraphs) or sentence (a sentence, headline or table row a line); a blank line always ends a sentence (default space)",
      ).choices(["space", "sentence"]),
    )
    .option(
      "--decoder <name>",
      `${decoders.map((d) => `${d.name} (${d.description})`).join("; ")}; or a plug-in's (default viterbi; two-slave for a general model; ${L2S_DEFAULT_DECODER} for an L2S tagger). Any chain model decodes with any of them, whatever its --objective. Decoder options: the flags below, each read by the decoders it names`,
    )
    .option(
      "--constraints <file>",
      `constraints file from \`lagrange constraints learn\` or \`lagrange rules mine\` (for ${names((d) => d.accepts.constraints)})`,
    )
    .option(
      "--plugin <module>",
      "a JavaScript module whose default export (host) => void adds decoders and slaves; repeatable. It runs the module's code with your privileges (files, network, processes): only load modules you trust",
      collect,
    )
    .option(
      "--slave <name>",
      "a plug-in slave added to every sentence's problem; repeatable",
      collect,
    )
    .option(
      "--unlabeled",
      "the data has no gold label column: every column is an input (default: a file as wide as the model's input columns is unlabeled, one column wider has gold last)",
    )
    .addOption(malformedOption())
    .option(
      "--threads <n>",
      "worker threads that tag (each loads the model and constraints once); streams the input; output stays in input order",
      parseInteger,
    )
    .option(
      "--window <n>",
      "streaming: sentences read and not yet written, at most: memory is bounded by it, not by the input (default 1024)",
      parseInteger,
    )
    .addOption(
      new Option(
        "--output-format <format>",
        "conll (the input's columns and the predicted label) or ndjson (one sentence per line: tokens, columns?, gold?, labels); default the input's format. Text input: entities (the default: one a line, start-end TAB type TAB text TAB score, offsets in UTF-16 code units, end exclusive), ndjson (one entity a line: start, end, type, text, score, scoreOf) or conll (token and label). An entity's score is its probability under a chain CRF (scoreOf chain; chain-unconstrained under a constrained decoder); null or - for a model without marginals",
      ).choices(["conll", "ndjson", "entities"]),
    )
    .addOption(
      new Option(
        "--on-error <policy>",
        "streaming: a malformed or untaggable record stops tagging with its file:line (stop, the default; everything before it is written), or is reported on stderr and skipped (skip: the rest is written, then the count is printed and the exit code is 3)",
      ).choices(["stop", "skip"]),
    )
    .option(
      "--explain",
      "NDJSON output: add each sentence's decoding (iterations, status, certified, primal, dual, gap) and the constraints that fired (multiplier > 0)",
    )
    .option(
      "--marginals",
      "add each token's marginal probabilities (CoNLL: the predicted label's, one column)",
    )
    .option("--probability", "NDJSON output: add p(labels | sentence) of each output labelling")
    .option(
      "--nbest <k>",
      `write the k best labellings, k ≤ ${MAX_NBEST} (CoNLL: k−1 more label columns)`,
      parseNbest,
    )
    .option("--forced", "the last input column fixes labels (? = free, {A,B} = one of)")
    .option(
      "--out <file>",
      "output file, written atomically; checked before tagging (default standard output)",
    )
    .action(lazy(() => import("../commands/tag.js"), "tagAction"));
  addDecoderFlags(tag, decoders);
  declareFiles(tag, {
    inputs: {
      "--model": "model",
      "--data": "data",
      "--constraints": "constraints",
      "--plugin": "plugin",
    },
    outputs: ["--out"],
  });
}
