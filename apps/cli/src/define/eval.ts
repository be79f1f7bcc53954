import { type Command, Option } from "commander";
import { declareFiles } from "../files-declared.js";
import { lazy } from "./lazy.js";
import { DEPS_PUNCTUATION, parseNbest } from "./values.js";

export function defineEval(program: Command): void {
  const command = program
    .command("eval")
    .description(
      "Evaluate predictions (gold = second-to-last column, prediction = last): a drop-in conlleval.pl (chunk F1; BIOES and BILOU chunks read by their scheme, hierarchical labels per field). lagrange tag's output of CoNLL-U (the ten fields, then the predicted tag) is scored by token accuracy against its UPOS or XPOS field. With --deps, dependency trees instead: eval --deps gold.conllu predicted.conllu prints the unlabelled and labelled attachment scores (UAS, LAS), with punctuation and without",
    )
    .argument(
      "<pred>",
      "prediction file in CoNLL columns, or - for standard input; with --deps, the gold CoNLL-U (a file or a registry name[:split], default split dev)",
    )
    .argument("[predicted]", "with --deps: the predicted CoNLL-U (lagrange parse's output)")
    .option(
      "--deps",
      "score dependency trees (HEAD, DEPREL of CoNLL-U; the two files must hold the same words): UAS, LAS and label accuracy",
    )
    .addOption(
      new Option(
        "--punctuation <mode>",
        "--deps: score punctuation words (include: UD's CoNLL 2017/2018 convention), leave them out (exclude: CoNLL-X and Penn Treebank; punctuation = gold UPOS PUNCT), or both rows (default both)",
      ).choices([...DEPS_PUNCTUATION]),
    )
    .option(
      "--confidence",
      "the last column is the prediction's probability (tag --marginals): add its calibration (ECE)",
    )
    .option("--reliability <svg>", "with --confidence: write a reliability diagram (SVG)")
    .option("--nbest <k>", "tag --nbest k output: oracle F1 at k = 1, 5, 10, k", parseNbest)
    .option("--json", "print the figures as JSON (percent, like conlleval)")
    .option("-r, --raw", "conlleval -r: tags carry no B-/I- prefix")
    .option("-d, --delimiter <char>", "conlleval -d: the column delimiter (default a space)")
    .option("-o, --outside <tag>", "conlleval -o: the outside tag, with --raw (default O)")
    .option("-l, --latex", "conlleval -l: a LaTeX table")
    .addOption(
      new Option("--hierarchical", "evaluate hierarchical labels per field (segment)").conflicts(
        "flat",
      ),
    )
    .option("--flat", "force conlleval's flat chunk evaluation")
    .addOption(
      new Option(
        "--column <field>",
        "lagrange tag's output of CoNLL-U: the POS field the predictions are scored against (default the one whose tags they are)",
      ).choices(["upos", "xpos"]),
    )
    .action(lazy(() => import("../commands/eval.js"), "evalAction"));
  declareFiles(command, {
    inputs: { "<pred>": "predictions", "[predicted]": "predictions" },
    outputs: ["--reliability"],
  });
}
