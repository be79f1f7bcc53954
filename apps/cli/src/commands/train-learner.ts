import { L2S_TASKS, type Learner, learnerOnlyFlags } from "../define/train-values.js";
import { usageError } from "../exit-codes.js";

/**
 * The options of CRF training only (the chain and general CRFs): given with `--learner l2s` they
 * are a usage error naming them, since nothing would read them.
 */
export const CRF_ONLY_OPTIONS: readonly string[] = learnerOnlyFlags("crf");

/** The options of `--learner l2s` only. */
export const L2S_ONLY_OPTIONS: readonly string[] = learnerOnlyFlags("l2s");

/** Options of the parser task only, and of the tagger tasks only. */
const PARSER_ONLY_OPTIONS = ["--oracle", "--unlabelled", "--tag-field"] as const;
const TAGGER_ONLY_OPTIONS = ["--preset", "--scheme", "--no-bridge"] as const;

/**
 * Options given for the other learner, or for another L2S task, are usage errors naming them
 * (`given`: the options the command line set, defaults not counted).
 */
export function checkLearnerOptions(
  learner: Learner,
  task: string | undefined,
  given: ReadonlySet<string>,
): void {
  const of = (names: readonly string[]) => names.filter((name) => given.has(name));
  if (!given.has("--dev")) {
    const dev = of(["--dev-limit", "--dev-sample"]);
    if (dev.length > 0) throw usageError(`${dev.join(", ")} without --dev: add --dev <spec>`);
  }
  // --seed seeds the samples too: with the CRF learner it needs one to seed.
  if (learner === "crf" && given.has("--seed") && of(["--sample", "--dev-sample"]).length === 0) {
    throw usageError(
      "--seed seeds --sample and --dev-sample (and --learner l2s's search): add one, or drop --seed",
    );
  }
  if (learner === "crf") {
    const l2s = of(L2S_ONLY_OPTIONS);
    if (l2s.length > 0) {
      throw usageError(
        `${l2s.join(", ")}: ${l2s.length === 1 ? "an option" : "options"} of --learner l2s (learning to search); the default learner is crf: add --learner l2s, or drop ${l2s.length === 1 ? "it" : "them"}`,
      );
    }
    return;
  }
  const crf = of(CRF_ONLY_OPTIONS);
  if (crf.length > 0) {
    throw usageError(
      `${crf.join(", ")}: ${crf.length === 1 ? "an option" : "options"} of the CRF learner, not of --learner l2s (its options: ${L2S_ONLY_OPTIONS.join(", ")}; see lagrange train --help)`,
    );
  }
  if (task === undefined) {
    throw usageError(
      `--learner l2s needs --task ${L2S_TASKS.join(", ")}: pos (plain tags, e.g. UD UPOS), ner (entities under the data's scheme), parser (arc-hybrid dependency parsing of CoNLL-U)`,
    );
  }
  if (task === "parser") {
    const tagger = of(TAGGER_ONLY_OPTIONS);
    if (tagger.length > 0) {
      throw usageError(
        `${tagger.join(", ")}: for --task pos or ner; the parser has its own features (words and --tag-field tags) and no label scheme`,
      );
    }
    return;
  }
  const parser = of(PARSER_ONLY_OPTIONS);
  if (parser.length > 0) {
    throw usageError(`${parser.join(", ")}: for --task parser only; --task ${task} is a tagger`);
  }
  if (task === "pos" && given.has("--scheme")) {
    throw usageError(
      "--scheme with --task pos: POS tags are plain labels (scheme none); entities under a scheme are --task ner",
    );
  }
}
