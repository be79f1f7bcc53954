import { type Command, Option } from "commander";
import { parsePositive } from "../options.js";
import { L2S_TASKS, parseBits, parsePasses, parseSeed } from "./train-values.js";
import { PACKAGE_DEFAULTS } from "./values.js";

/**
 * The options of `lagrange train --learner l2s` (learning to search): given with the CRF learner,
 * they are a usage error (commands/train-check.ts).
 */
export function addL2sTrainOptions(command: Command): Command {
  return command
    .addOption(
      new Option(
        "--task <task>",
        "--learner l2s (required there): pos (plain tags, e.g. UD UPOS of CoNLL-U or a CoNLL label column), ner (entities under the data's scheme, or --scheme; the constraint bridge keeps every prediction valid), parser (arc-hybrid dependency parser on CoNLL-U: HEAD and DEPREL)",
      ).choices([...L2S_TASKS]),
    )
    .option(
      "--passes <n>",
      "--learner l2s: passes over the training data (an integer), or a rate in (0, 1): one pass learning from that share of the decisions (default 1)",
      parsePasses,
    )
    .addOption(
      new Option(
        "--roll-in <policy>",
        "--learner l2s: who decides before a learned decision: reference (the gold, as SEARN's first step), learned (the policy itself, LOLS), mixture (DAgger) (default learned; reference for --oracle static)",
      ).choices([...PACKAGE_DEFAULTS.rollIns]),
    )
    .addOption(
      new Option(
        "--roll-out <policy>",
        "--learner l2s: who completes the output after a deviation, to cost it: reference, learned, mixture, or none (default: the task's own one-step costs — Hamming for the taggers, the dynamic oracle's exact costs-to-go for the parser)",
      ).choices([...PACKAGE_DEFAULTS.rollOuts]),
    )
    .addOption(
      new Option(
        "--base-learner <name>",
        "--learner l2s: the cost-sensitive classifier the policy is: csoaa (VW's one-against-all regression, AdaGrad; default for --task pos and ner) or perceptron (the cost-sensitive averaged perceptron; default for --task parser)",
      ).choices([...PACKAGE_DEFAULTS.baseLearners]),
    )
    .option(
      "--bits <b>",
      "--learner l2s: log2 of the hashed weight table (VW's -b; default 20 for csoaa, 22 for perceptron)",
      parseBits,
    )
    .option(
      "--learning-rate <eta>",
      "--learner l2s, --base-learner csoaa: the learning rate (VW's -l; default 0.5); the perceptron has none",
      parsePositive,
    )
    .option(
      "--seed <s>",
      "seeds --sample and --dev-sample, and --learner l2s's shuffles and mixtures (default 1)",
      parseSeed,
    )
    .option(
      "--no-bridge",
      "--learner l2s --task ner: let the tagger leave the scheme (by default the constraint bridge allows only labels valid after the previous one, in training and tagging)",
    )
    .addOption(
      new Option(
        "--oracle <kind>",
        "--task parser: dynamic (exact costs of every transition from any configuration; default) or static (imitates the gold transition sequence, with a reference roll-in)",
      ).choices(["dynamic", "static"]),
    )
    .option("--unlabelled", "--task parser: predict heads only (no DEPREL; UAS only)")
    .addOption(
      new Option(
        "--tag-field <field>",
        "--task parser: the CoNLL-U POS field the parser reads (default UPOS)",
      ).choices(["UPOS", "XPOS"]),
    );
}
