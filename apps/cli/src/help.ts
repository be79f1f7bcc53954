import { type Command, Help, type Option } from "commander";
import { learnerOnlyFlags } from "./define/train-values.js";
import { PACKAGE_DEFAULTS } from "./define/values.js";
import { EXIT_CODES_HELP } from "./exit-codes.js";

/**
 * What `--help` shows of one command: a one-line summary, the options most runs need and two
 * examples. Every other option (any a define/*.ts adds that no entry here names) is left to the
 * full listing, `--help-all`, so that the first screen stays short as commands grow.
 */
export interface CommandHelp {
  /** One line: the program's list of commands, and the top of the command's own help. */
  readonly summary: string;
  /**
   * The options `--help` shows, by long flag, with a shorter description where the full one runs
   * over a line (`null`: the option's own). Names of options a command lacks are ignored.
   */
  readonly common: Readonly<Record<string, string | null>>;
  /** Command lines a user can copy, `lagrange` first. */
  readonly examples: readonly string[];
  /** The full listing's option groups (heading → long flags); the rest stay under "Options:". */
  readonly groups?: Readonly<Record<string, readonly string[]>>;
}

const DATA = "a registry name[:split] (see lagrange datasets) or a file";

/** By command path: "" the program, "train", "queue submit". */
export const COMMAND_HELP: Readonly<Record<string, CommandHelp>> = {
  "": {
    summary: "Structured prediction with global constraints: train, tag, parse, evaluate.",
    common: { "--version": null, "--help": null },
    examples: [
      "lagrange datasets",
      "lagrange train --data conll2000:train --preset chunking --limit 2000 --out chunk.lgm",
      "lagrange tag --model chunk.lgm --data conll2000:test | lagrange eval -",
    ],
  },
  datasets: {
    summary: "List the registered datasets, their splits and whether each is here",
    common: { "--json": null },
    examples: ["lagrange datasets", "lagrange datasets conll2003 --json"],
  },
  train: {
    summary: "Train a model (a CRF, or learning to search) on labelled data",
    common: {
      "--data": `training data: ${DATA}`,
      "--preset": `features: ${PACKAGE_DEFAULTS.presets.base.join(", ")}; or a task preset: ${PACKAGE_DEFAULTS.presets.task.join(", ")}`,
      "--learner": "crf, or l2s (learning to search, with --task)",
      "--algorithm": null,
      "--c2": null,
      "--max-iterations": null,
      "--threads": null,
      "--dev": `held-out data scored during training: ${DATA}`,
      "--init": "continue training from a model (Lagrange or CRFsuite)",
      "--limit": null,
      "--sample": null,
      "--seed": "seeds --sample (and --learner l2s's shuffles); default 1",
      "--out": "model file to write (atomically)",
    },
    examples: [
      "lagrange train --data conll2000:train --preset chunking --limit 2000 --out chunk.lgm",
      "lagrange train --data my.conll --preset ner-words --dev my-dev.conll --out my.lgm",
    ],
    groups: {
      "General CRF (--model general):": [
        "--model",
        "--groups",
        "--folds",
        "--epochs",
        "--train-decoder",
        "--max-group",
        "--min-overlap",
      ],
      "Learning to search (--learner l2s):": learnerOnlyFlags("l2s"),
    },
  },
  models: {
    summary: "Build each task preset's model from the registry, list what is built",
    common: {},
    examples: ["lagrange models build ner-en", "lagrange models list"],
  },
  "models build": {
    summary: "Train a task preset's model on its registry split, with its provenance",
    common: {
      "--out": "model file (default <cache dir>/models/<task>.lgm)",
      "--words-only": "read the word column alone (a model for raw text)",
      "--threads": null,
      "--max-iterations": null,
    },
    examples: [
      "lagrange models build ner-en --threads 2",
      "lagrange models build pos-en --words-only --out pos.lgm",
    ],
  },
  "models list": {
    summary: "Every built model: task, file, size, date, data, SHA-256 check",
    common: { "--dir": null, "--json": null },
    examples: ["lagrange models list", "lagrange models list --dir ./models --json"],
  },
  tag: {
    summary: "Label data with a model and a decoder (Viterbi, DD, ILP, …)",
    common: {
      "--model": null,
      "--data": `data to tag: ${DATA}, or - for standard input`,
      "--format": "file format: conll, conllu, umass, inline, ndjson, crfsuite, text (raw text)",
      "--text": "raw text to tag: its entities, with offsets and probabilities",
      "--decoder": `${PACKAGE_DEFAULTS.decoders.join(", ")} (default ${PACKAGE_DEFAULTS.defaultDecoder}; --help-all: each one, and options)`,
      "--constraints": "constraints file (lagrange constraints learn, lagrange rules mine)",
      "--nbest": null,
      "--marginals": null,
      "--probability": null,
      "--forced": null,
      "--output-format":
        "conll or ndjson (default: the input's format); text: entities (default), ndjson, conll",
      "--out": "output file (default standard output)",
    },
    examples: [
      "lagrange tag --model chunk.lgm --data conll2000:test --out chunk.tags",
      "lagrange tag --model cite.lgm --data cites.docs --decoder soft-dd --constraints c.json",
    ],
  },
  eval: {
    summary: "Score predictions: chunk F1 (conlleval), accuracy, UAS/LAS",
    common: {
      "--json": null,
      "--deps": "score dependency trees of CoNLL-U: UAS, LAS",
      "--confidence": null,
      "--reliability": null,
      "--nbest": null,
    },
    examples: [
      "lagrange eval chunk.tags",
      "lagrange tag --model chunk.lgm --data conll2000:test | lagrange eval --json -",
    ],
  },
  parse: {
    summary: "Parse CoNLL-U with a learning-to-search dependency parser",
    common: {
      "--model": null,
      "--tagger": "a POS tagger model whose tags the parser reads",
      "--out": "output CoNLL-U (default standard output)",
    },
    examples: [
      "lagrange parse --model parser.lgm ud-en-ewt:dev --out parsed.conllu",
      "lagrange eval --deps ud-en-ewt:dev parsed.conllu",
    ],
  },
  constraints: {
    summary: "Learn penalties of global constraints over a model's labels",
    common: {},
    examples: [
      "lagrange constraints learn --model cite.lgm --data umass-citations:dev --out c.json",
      "lagrange tag --model cite.lgm --data umass-citations:test --decoder soft-dd --constraints c.json",
    ],
  },
  "constraints learn": {
    summary: "Learn constraint penalties on held-out data; write a constraints file",
    common: {
      "--model": null,
      "--data": `held-out labelled data: ${DATA}`,
      "--templates": "families: singleton, pairwise, hierarchical, bio, rules",
      "--out": "constraints file to write (JSON)",
    },
    examples: [
      "lagrange constraints learn --model cite.lgm --data umass-citations:dev --out c.json",
      "lagrange constraints learn --model ner.lgm --data conll2003:dev --templates rules --out r.json",
    ],
  },
  rules: {
    summary: "Mine rule templates (fersini2014) from labelled data",
    common: {},
    examples: [
      "lagrange rules mine --data conll2003:train --out rules.json",
      "lagrange tag --model ner.lgm --data conll2003:dev --decoder soft-dd --constraints rules.json",
    ],
  },
  "rules mine": {
    summary: "Mine rules from gold labels into a constraints file",
    common: {
      "--data": `labelled data: ${DATA}`,
      "--model": "write the rules for this model's labels",
      "--min-support": null,
      "--min-confidence": "keep rules the gold satisfies at least this often (0…1)",
      "--out": "constraints file to write (JSON)",
    },
    examples: [
      "lagrange rules mine --data conll2003:train --out rules.json",
      "lagrange rules mine --data my.conll --min-confidence 0.99 --out rules.json",
    ],
  },
  clusters: {
    summary: "Brown clusters of raw text, as Liang's wcluster writes them",
    common: {
      "--text": null,
      "--corpus": "registry raw text (brown, …) or a split's words (conll2003:train)",
      "--clusters": null,
      "--out": null,
    },
    examples: [
      "lagrange clusters --corpus brown --clusters 1000 --out brown.paths",
      "lagrange train --data conll2003:train --preset ner --clusters brown.paths --out ner.lgm",
    ],
  },
  "factor-graph": {
    summary: "Solve a factor graph (AD3's .fg or UAI) with AD3",
    common: {
      "--graph": null,
      "--exact": "exact MAP: branch and bound over AD3 relaxations",
      "--max-iterations": null,
      "--json": null,
    },
    examples: [
      "lagrange factor-graph --graph coref.fg",
      "lagrange factor-graph --graph grid.uai --exact --json",
    ],
  },
  info: {
    summary: "Describe a model file",
    common: { "--json": null, "--features": null, "--top": null, "--label": null },
    examples: [
      "lagrange info chunk.lgm",
      "lagrange info chunk.lgm --features --top 10 --label B-NP",
    ],
  },
  explain: {
    summary: "Break one sentence's label scores into features, transitions, constraints",
    common: {
      "--model": null,
      "--data": `${DATA}`,
      "--sentence": null,
      "--decoder": null,
      "--constraints": null,
      "--top": null,
      "--compare": null,
      "--json": null,
    },
    examples: [
      "lagrange explain --model chunk.lgm --data conll2000:test --sentence 3 --top 5",
      "lagrange explain --model cite.lgm --data umass-citations:dev --decoder soft-dd --constraints cite.json",
    ],
  },
  import: {
    summary: "Convert a CRFsuite model into a Lagrange model",
    common: { "--from": null, "--out": null },
    examples: [
      "lagrange import --from crfsuite m.crfsuite --out m.lgm",
      "lagrange tag --model m.lgm --data attributes.txt --format crfsuite",
    ],
  },
  export: {
    summary: "Write a Lagrange model as a CRFsuite model",
    common: { "--to": null, "--model": null, "--out": null },
    examples: [
      "lagrange export --to crfsuite --model chunk.lgm --out chunk.crfsuite",
      "crfsuite tag -m chunk.crfsuite attributes.txt",
    ],
  },
  compress: {
    summary: "Write a smaller model: quantised weights, weak features pruned",
    common: {
      "--model": null,
      "--out": null,
      "--bits": null,
      "--prune-below": null,
      "--keep": null,
    },
    examples: [
      "lagrange compress --model ner.lgm --out ner-small.lgm --bits 8 --prune-below 0.01",
      "lagrange info ner-small.lgm",
    ],
  },
  demo: {
    summary: "Citations end to end: train, learn constraints, decode",
    common: { "--crf-iterations": null, "--threads": null, "--seed": null },
    examples: ["lagrange demo", "lagrange demo --crf-iterations 50 --threads 2"],
  },
  queue: {
    summary: "Tag a corpus on many machines through a Redis queue (BullMQ)",
    common: {},
    examples: [
      "lagrange queue submit --data big.conll --model ner.lgm --job big --redis redis://host",
      "lagrange queue collect --job big --out big.tags --redis redis://host",
    ],
  },
  "queue submit": {
    summary: "Queue a corpus as shards of whole sentences, for workers to tag",
    common: {
      "--data": `data to tag: ${DATA}`,
      "--model": null,
      "--job": null,
      "--decoder": null,
      "--constraints": null,
      "--redis": null,
    },
    examples: [
      "lagrange queue submit --data big.conll --model ner.lgm --job big --redis redis://host",
      "lagrange queue submit --data conll2003:dev --model ner.lgm --job dev --shard-size 200",
    ],
  },
  "queue work": {
    summary: "Tag queued shards until stopped (one worker per core)",
    common: { "--concurrency": null, "--redis": null },
    examples: [
      "lagrange queue work --redis redis://host",
      "lagrange queue work --model-dir /models --redis redis://host",
    ],
  },
  "queue collect": {
    summary: "Write a job's output in corpus order once its shards are done",
    common: { "--job": null, "--out": null, "--partial": null, "--redis": null },
    examples: [
      "lagrange queue collect --job big --out big.tags --redis redis://host",
      "lagrange queue collect --job big --out big.tags --partial",
    ],
  },
  "queue status": {
    summary: "A job's progress (done, active, waiting, failed) and throughput",
    common: { "--job": null, "--json": null, "--redis": null },
    examples: ["lagrange queue status --job big", "lagrange queue status --job big --json"],
  },
  "queue remove": {
    summary: "Remove a job, its shards, results and (unshared) model",
    common: { "--job": null, "--force": null, "--redis": null },
    examples: ["lagrange queue remove big", "lagrange queue remove --job big --force"],
  },
};

/** The words of a command below the program: "" for the program, "queue submit". */
export function commandPath(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(" ");
}

/**
 * The help of every command, short or full: the summary replaces the description and the options
 * outside `common` are hidden (short), or everything shows grouped (full). Examples go under both,
 * and the exit codes under the program's alone. Call once the program and its commands are defined.
 */
export function layOutHelp(program: Command, full: boolean): void {
  const visit = (command: Command): void => {
    layOutCommand(command, full);
    for (const sub of command.commands) visit(sub);
  };
  visit(program);
  program.helpCommand("help [command]", "Help for a command (help CMD --all, help exit-codes)");
  program.addHelpText("after", EXIT_CODES_BRIEF);
}

/**
 * The exit codes in brief, under the program's help only (`lagrange help exit-codes` prints the
 * table in full): a command's help would repeat them for every command.
 */
const EXIT_CODES_BRIEF = `
Exit codes: 0 success, 1 failure while running, 2 usage error, 3 malformed input,
  4 dataset split not reachable, 130/143/129 stopped by SIGINT/SIGTERM/SIGHUP
  (lagrange help exit-codes: each in full)`;

/** `lagrange train` for the train command: the words a user types. */
function programOf(command: Command): string {
  return ["lagrange", commandPath(command)].filter((word) => word !== "").join(" ");
}

function layOutCommand(command: Command, full: boolean): void {
  const help = COMMAND_HELP[commandPath(command)];
  // The program's list of commands: one line each, by name (their options are in their own help).
  command.configureHelp({
    subcommandTerm: (sub: Command) => sub.name(),
    subcommandDescription: (sub: Command) => firstLine(command, sub),
    ...(full ? {} : { optionDescription: briefOf(help) }),
  });
  if (help === undefined) return;
  command.summary(help.summary);
  if (!full) command.description(help.summary);
  let hidden = 0;
  for (const option of command.options) {
    const long = option.long ?? "";
    if (full) {
      const group = Object.entries(help.groups ?? {}).find(([, flags]) => flags.includes(long));
      if (group !== undefined) option.helpGroup(group[0]);
    } else if (!option.hidden && !(long in help.common)) {
      option.hideHelp();
      hidden++;
    }
  }
  const lines = help.examples.map((example) => `  ${example}`);
  const more =
    hidden === 0 ? "" : `\n\nEvery option (${hidden} more): ${programOf(command)} --help-all`;
  command.addHelpText("after", `\nExamples:\n${lines.join("\n")}${more}`);
}

/**
 * A command's line in its parent's list: its summary, else its description's first sentence (by
 * the parent's path: commander's own help command has no parent).
 */
function firstLine(parent: Command, command: Command): string {
  const path = [commandPath(parent), command.name()].filter((name) => name !== "").join(" ");
  const summary = COMMAND_HELP[path]?.summary;
  return summary ?? command.description().split(/(?<=[.;])\s/)[0] ?? "";
}

/**
 * The short view's description of an option: the entry's brief (which says what matters of the
 * choices and the default), else commander's own (the description, the choices, the default).
 */
function briefOf(help: CommandHelp | undefined) {
  return function optionDescription(this: Help, option: Option): string {
    const brief = help?.common[option.long ?? ""];
    return typeof brief === "string" ? brief : Help.prototype.optionDescription.call(this, option);
  };
}

/** `--help-all` anywhere, or `lagrange help <command> --all`: the full listing. */
export function wantsFullHelp(argv: readonly string[]): boolean {
  return argv.includes("--help-all") || (argv[0] === "help" && argv.includes("--all"));
}

/** The arguments commander parses: `--help-all` as `--help`, `help … --all` without `--all`. */
export function helpArguments(argv: readonly string[]): string[] {
  const help = argv[0] === "help";
  return argv
    .filter((arg) => !(help && arg === "--all"))
    .map((arg) => (arg === "--help-all" ? "--help" : arg));
}

/** `lagrange help exit-codes`: the table alone. */
export function exitCodesHelp(argv: readonly string[]): string | undefined {
  return argv[0] === "help" && argv[1] === "exit-codes" && argv.length === 2
    ? `${EXIT_CODES_HELP.trimStart()}\n`
    : undefined;
}
