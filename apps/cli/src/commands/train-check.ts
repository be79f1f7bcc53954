import { parseLabelScheme } from "@lagrange/datasets";
import { checkPresetName, checkTrainingSpec, isTaskPreset, L2S_TASKS } from "@lagrange/recipes";
import {
  type Learner,
  learnerOnlyFlags,
  TRAIN_FLAG_SCOPES,
  type TrainCondition,
  type TrainOptions,
  type TrainPath,
} from "../define/train-values.js";
import { usageError } from "../exit-codes.js";
import { splitLexiconArgument } from "../files-declared.js";
import { warn } from "../progress.js";
import { trainingSpec } from "./train-common.js";

/** The path a run takes, as {@link TRAIN_FLAG_SCOPES} tells flags apart. */
export function trainPath(options: TrainOptions, given: ReadonlySet<string>): TrainPath {
  return {
    learner: options.learner ?? "crf",
    algorithm: options.algorithm,
    objective: options.objective ?? "crf",
    order: options.order ?? "1",
    model: options.model ?? "chain",
    groups: options.groups ?? "none",
    task: options.task ?? "none",
    twoStage: options.twoStage === true,
    dev: given.has("--dev"),
    taskPreset: options.preset !== undefined && isTaskPreset(options.preset),
  };
}

/**
 * Every flag given (`given`: by the command line, defaults not counted) that the chosen path does
 * not read, by {@link TRAIN_FLAG_SCOPES}: a usage error naming each flag and the path, or a
 * warning for the flags whose table entry says so. Runs after the paths' own checks, whose
 * messages say more (`--groups` without `--model general`, CRF options with `--learner l2s`).
 */
export function checkFlagScopes(options: TrainOptions, given: ReadonlySet<string>): void {
  const path = trainPath(options, given);
  const refused: string[] = [];
  for (const [flag, scope] of Object.entries(TRAIN_FLAG_SCOPES)) {
    if (!given.has(flag) || scope.where.length === 0) continue;
    if (scope.where.some((condition) => holds(condition, path))) continue;
    const where = describeWhere(scope.where);
    const actual = describePath(scope.where, path);
    if (scope.elsewhere === "warn") warn(`${flag} ${where}; ignored ${actual}`);
    else refused.push(`${flag} ${where}, so it does nothing ${actual}`);
  }
  if (refused.length > 0) {
    throw usageError(`${refused.join("; ")}: drop ${refused.length === 1 ? "it" : "them"}`);
  }
}

type Dimension = keyof TrainPath;

function holds(condition: TrainCondition, path: TrainPath): boolean {
  return (Object.keys(condition) as Dimension[]).every((d) => meets(condition, d, path));
}

function meets(condition: TrainCondition, d: Dimension, path: TrainPath): boolean {
  const wanted = condition[d];
  const value = path[d];
  return typeof value === "boolean" ? value : (wanted as readonly string[]).includes(value);
}

/** How a condition's dimensions are said: the flag that sets each. */
const FLAG_OF: Readonly<Record<Dimension, string>> = {
  learner: "--learner",
  algorithm: "--algorithm",
  objective: "--objective",
  order: "--order",
  model: "--model",
  groups: "--groups",
  task: "--task",
  twoStage: "--two-stage",
  dev: "--dev",
  taskPreset: "a task preset",
};

/** The dimensions of a condition worth saying: the learner only when it is all there is. */
function said(condition: TrainCondition): Dimension[] {
  const all = Object.keys(condition) as Dimension[];
  return all.length > 1 ? all.filter((d) => d !== "learner") : all;
}

/** "applies to --algorithm lbfgs/owlqn only", "needs --dev". */
function describeWhere(where: readonly TrainCondition[]): string {
  const text = where
    .map((condition) =>
      said(condition)
        .map((d) => {
          const values = condition[d];
          return Array.isArray(values) ? `${FLAG_OF[d]} ${values.join("/")}` : FLAG_OF[d];
        })
        .join(" with "),
    )
    .join(" or ");
  const onlyFlags = where.every((c) => said(c).every((d) => typeof c[d] === "boolean"));
  return onlyFlags ? `needs ${text}` : `applies to ${text} only`;
}

/** What the path is on the dimensions that rule the flag out: "with ap", "without --dev". */
function describePath(where: readonly TrainCondition[], path: TrainPath): string {
  const missed = new Set<Dimension>();
  for (const condition of where) {
    for (const d of said(condition)) if (!meets(condition, d, path)) missed.add(d);
  }
  return [...missed]
    .map((d) => {
      const value = path[d];
      if (typeof value === "boolean") return `${value ? "with" : "without"} ${FLAG_OF[d]}`;
      if (d === "algorithm") return `with ${value}`;
      if (d === "model" && value === "chain") return "with a chain CRF";
      if (value === "none") return `without ${FLAG_OF[d]}`;
      return `with ${FLAG_OF[d]} ${value}`;
    })
    .join(" ");
}

/**
 * What the features need (a preset or template, known names), then recipes' checks of the spec;
 * flags the chosen path does not read are {@link checkFlagScopes}'s.
 */
export function checkTrainOptions(options: TrainOptions): void {
  if (
    options.preset === undefined &&
    options.template === undefined &&
    options.init === undefined
  ) {
    throw usageError(
      "--preset or --template is required with the CRF learner: a feature preset (chunking, ner, ner-words, citation, pos), a task preset (ner-en, ner-es, ner-nl, ner-tweets, pos-en) or a CRF++ template file (--learner l2s --task pos|ner picks one itself)",
    );
  }
  if (options.preset !== undefined && options.template !== undefined) {
    throw usageError("--preset and --template both name the features: give one");
  }
  // An unknown name is a usage error before anything is read.
  if (options.preset !== undefined) checkPresetName(options.preset);
  for (const entry of options.lexicon ?? []) lexiconArgument(entry);
  if (options.scheme !== undefined) parseLabelScheme(options.scheme, "--scheme");
  checkTrainingSpec(trainingSpec(options, undefined));
}

/** `--lexicon NAME=FILE` split into its name and file. */
export function lexiconArgument(entry: string): { name: string; file: string } {
  const split = splitLexiconArgument(entry);
  if (split === undefined || !/^[A-Za-z0-9_.-]+$/.test(split.name)) {
    throw usageError(
      `--lexicon ${entry}: expected NAME=FILE, NAME of letters, digits, _ . - (it names the lexicon's attributes)`,
    );
  }
  return split;
}

/** Names the given options of `options` among `keys`, as their flags. */
function givenFlags(
  options: TrainOptions,
  keys: readonly [keyof TrainOptions, string][],
): string[] {
  return keys.filter(([key]) => options[key] !== undefined).map(([, flag]) => flag);
}

/** Options that name features or a model kind, which `--init` takes from its model instead. */
const REFUSED_WITH_INIT: readonly [keyof TrainOptions, string][] = [
  ["template", "--template"],
  ["columns", "--columns"],
  ["clusters", "--clusters"],
  ["lexicon", "--lexicon"],
  ["resources", "--resources"],
  ["denseColumns", "--dense-columns"],
  ["twoStage", "--two-stage"],
  ["groups", "--groups"],
];

/** `--init` with options it cannot honour: a usage error naming them. */
export function checkInitOptions(options: TrainOptions): void {
  if (options.init === undefined) return;
  const given = givenFlags(options, REFUSED_WITH_INIT);
  if (options.model === "general") given.push("--model general");
  if (given.length > 0) {
    throw usageError(
      `${given.join(", ")} with --init: continued training keeps the initial model's features and trains a chain CRF (a compatible --preset is accepted)`,
    );
  }
}

/** Options of `lagrange train` that build features from text columns: CRFsuite data has none. */
const COLUMN_FEATURE_OPTIONS: readonly [keyof TrainOptions, string][] = [
  ["preset", "--preset"],
  ...REFUSED_WITH_INIT.slice(0, 6),
  ["partial", "--partial"],
  ["twoStage", "--two-stage"],
  ["groups", "--groups"],
];

/** Options of the CoNLL path that the CRFsuite one does not implement: refused, never ignored. */
const NOT_YET_WITH_CRFSUITE: readonly [keyof TrainOptions, string][] = [
  ["init", "--init"],
  ["classWeight", "--class-weight"],
];

/** `--format crfsuite`: the attributes are in the data; what builds them from columns is refused. */
export function checkCrfsuiteTrainOptions(options: TrainOptions): void {
  const named = givenFlags(options, COLUMN_FEATURE_OPTIONS);
  if (options.order === "2") {
    throw usageError("--order 2 trains chain CRFs on text columns; not with --format crfsuite yet");
  }
  if (named.length > 0 || options.model === "general") {
    throw usageError(
      `${[...named, ...(options.model === "general" ? ["--model general"] : [])].join(", ")}: --format crfsuite data carries its attributes (label TAB name[:value] …), so no preset, template, resource or other model kind applies`,
    );
  }
  const unsupported = givenFlags(options, NOT_YET_WITH_CRFSUITE);
  if (unsupported.length > 0) {
    throw usageError(
      `${unsupported.join(", ")}: not available with --format crfsuite yet; train on CoNLL columns for it`,
    );
  }
  if (options.scheme !== undefined) parseLabelScheme(options.scheme, "--scheme");
}

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
