import { type Command, Option } from "commander";
import { declareFiles } from "../files-declared.js";
import {
  collect,
  malformedOption,
  parseInteger,
  parseNonNegative,
  parsePositive,
} from "../options.js";
import { parseDenseColumns } from "./dense-columns.js";
import { lazy } from "./lazy.js";
import { addL2sTrainOptions } from "./train-l2s.js";
import { GENERAL_DEFAULTS, LEARNERS, MODEL_KINDS, parseByteSize } from "./train-values.js";
import { PACKAGE_DEFAULTS } from "./values.js";

export function defineTrain(program: Command): void {
  const command = program
    .command("train")
    .description(
      "Train a linear-chain CRF (or, with --model general, qian-liu2014's general CRF: the chain plus consistency factors over groups of sentences) and write a model file. --objective bcrf or mean-field trains the same features under corro's Bregman CRF loss or mean field's; --partial reads ? (unknown) and {B-PER,I-PER} (label set) cells in the gold column as partial annotations. --learner l2s trains by learning to search (chang2016) instead: --task pos or ner, a left-to-right tagger (lagrange tag tags with it), or --task parser, an arc-hybrid dependency parser on CoNLL-U (lagrange parse parses with it); the CRF's options (--algorithm, --c2, --objective, --threads, …) do not apply to it, nor its options (--passes, --roll-in, …) to the CRF",
    )
    .requiredOption(
      "--data <spec>",
      "training data: a registry name[:split] (default split train) or a file path",
    )
    .option(
      "--format <format>",
      "file format for a path: conll, conllu, umass, inline, crfsuite (default from the extension)",
    )
    .option(
      "--words-only",
      "read --data and --dev through their first input column alone (the word), so that the model tags raw text (lagrange tag --format text); its other columns (POS, chunk) are not read",
    )
    .addOption(
      new Option(
        "--learner <name>",
        "crf: a CRF trained by the options below (--algorithm, --objective, --model, …); l2s: learning to search (chang2016), with --task and the L2S options",
      )
        .choices([...LEARNERS])
        .default("crf"),
    )
    .option(
      "--preset <name>",
      `feature preset: ${PACKAGE_DEFAULTS.presets.base.join(", ")}; or a task preset that bundles what won on held-out data — ${PACKAGE_DEFAULTS.presets.task.join(", ")}: the features plus Brown clusters of raw text in the language, gazetteers, jackknifed lexicons mined from the training labels, the stopping rule and the decoder (required with --learner crf unless --template; --learner l2s: default pos for --task pos, ner for --task ner — ner-words when the data has only words)`,
    )
    .option(
      "--template <file>",
      "a CRF++ feature template instead of --preset: U lines (state) and B lines (transition) of %x[row,col] macros, col a number or a column name of --columns",
    )
    .option(
      "--columns <names>",
      "names of the data's input columns, left to right (e.g. word,pos,chunk): templates read %x[0,pos] and the ner preset uses the pos and chunk columns it finds (default: the registry's, else by count: word; word,pos; word,pos,chunk)",
      (value: string) => value.split(",").map((c) => c.trim()),
    )
    .option(
      "--clusters <file>",
      "word clusters as features: a Liang paths file (bits TAB word TAB count, e.g. from lagrange clusters or wcluster); path prefixes 4/6/10/20 of the word and its neighbours (repeatable)",
      collect,
    )
    .option(
      "--dense-columns <list>",
      "CoNLL columns of numbers (e.g. 2-51: embeddings) as real-valued features dense[c]",
      parseDenseColumns,
    )
    .option(
      "--lexicon <name=file>",
      "a lexicon as features: one entry a line, multi-word entries matched as spans (begin/inside attributes, as written and case-folded); repeatable",
      collect,
    )
    .option(
      "--resources <dir>",
      "task presets: a folder with clusters-<language>.paths and <lexicon>.txt files to use instead of the registry's (default: the clusters @lagrange/resources ships, else built from the registry's raw text once and cached)",
    )
    .addOption(
      new Option("--algorithm <name>", "trainer")
        .choices([...PACKAGE_DEFAULTS.trainingAlgorithms])
        .default("lbfgs"),
    )
    .option(
      "--c1 <x>",
      "L1 coefficient c1·‖w‖₁ (lbfgs, owlqn: optimised by OWL-QN; default 1 for owlqn, else 0)",
      parseNonNegative,
    )
    .option("--c2 <x>", "L2 coefficient c2·‖w‖², CRFsuite's convention", parseNonNegative)
    .option(
      "--max-iterations <n>",
      "iterations (L-BFGS) or epochs (perceptron, SGD); with a task preset, replaces its held-out stopping rule (a tuning tenth of --data, scored every 10 iterations, patience 3, the best iteration's model kept) by this cap and --delta (default the preset's 1e-3)",
      parseInteger,
    )
    .option(
      "--delta <x>",
      "L-BFGS/OWL-QN: stop when the loss falls by less than this (relative) over 10 iterations (CRFsuite's rule; default 1e-5); with a task preset, replaces its held-out stopping rule",
      parsePositive,
    )
    .option(
      "--threads <n>",
      "worker threads for the L-BFGS objective (at most the number of cores)",
      parseInteger,
    )
    .option("--min-freq <n>", "keep attributes seen at least n times", parseInteger)
    .option(
      "--max-memory <size>",
      "refuse to train (exit 2, before allocating) when the estimated memory exceeds this — a CRF's: labels² transitions and attributes × labels, times the trainer's copies; --learner l2s: the 2^bits hashed tables — as 8G, 512M, 1.5GiB or none (default: half the machine's memory, at most 8 GB)",
      parseByteSize,
    )
    .option(
      "--dev <spec>",
      "held-out data evaluated during training (registry name[:split] or path); with a task preset, replaces its held-out stopping rule (early stopping on --dev only with --patience)",
    )
    .option("--limit <n>", "train on the first n sentences of --data", parseInteger)
    // A sample of the first n is not what either flag says: one or the other.
    .addOption(
      new Option("--sample <n>", "train on n sentences of --data drawn at random (--seed)")
        .argParser(parseInteger)
        .conflicts("limit"),
    )
    .option("--dev-limit <n>", "score the first n sentences of --dev", parseInteger)
    .addOption(
      new Option("--dev-sample <n>", "score n sentences of --dev drawn at random (--seed)")
        .argParser(parseInteger)
        .conflicts("devLimit"),
    )
    .option("--patience <n>", "early stopping: evaluations without dev improvement", parseInteger)
    .addOption(
      new Option(
        "--objective <name>",
        "the loss minimised on the CRF's features: crf (the likelihood), bcrf (corro's Bregman CRF: the Fenchel–Young loss of parallel Bregman projections), mean-field (unrolled naive mean field, the paper's baseline); the model file records it, and any decoder tags with the model",
      )
        .choices([...PACKAGE_DEFAULTS.trainingObjectives])
        .default("crf"),
    )
    .option(
      "--bcrf-iterations <k>",
      `--objective bcrf: IBP half-steps per loss evaluation (default ${PACKAGE_DEFAULTS.bcrfTrainingIterations}); mean-field: unrolled updates (default ${PACKAGE_DEFAULTS.meanFieldIterations})`,
      parseInteger,
    )
    .option(
      "--partial",
      "the gold label column holds partial annotations: ? an unknown label, {B-PER,I-PER} a set of allowed labels (labels a set names join the model's); training marginalises over the labellings they allow (objectives crf and bcrf; not mean-field, not --algorithm ap); partially annotated --dev sentences are left out of the dev scores. Without it such a cell is an error at its file:line",
    )
    .option(
      "--constrained-training",
      "train under the scheme's transition mask (likelihood over valid labellings only)",
    )
    .addOption(
      new Option("--order <n>", "2 adds label-trigram weights (exact; L³ per token, lbfgs/owlqn)")
        .choices(["1", "2"])
        .default("1"),
    )
    .addOption(
      new Option("--trigrams <which>", "--order 2: weights for the observed trigrams or all L³")
        .choices(["observed", "all"])
        .default("observed"),
    )
    .option(
      "--class-weight <spec>",
      "weight of a gold label in the loss: LABEL=w, or balanced[:POWER] (repeatable)",
      collect,
    )
    .option(
      "--scheme <name>",
      "label scheme for decoding and evaluation: IOB2, IOB1, IOE1, IOE2, BIOES, BILOU, hierarchical-BIO, none (default: the data's — the registry's, UMass ⇒ hierarchical-BIO, or read off the labels)",
    )
    .addOption(malformedOption())
    .addOption(
      new Option(
        "--model <kind>",
        `chain: a linear-chain CRF; general: the chain CRF plus consistency weights linking repeated phrases across a group of sentences (qian-liu2014; tag it with --decoder ${PACKAGE_DEFAULTS.patternDecoders.join(", ")})`,
      )
        .choices([...MODEL_KINDS])
        .default("chain"),
    )
    .addOption(
      new Option(
        "--groups <kind>",
        "--model general (required there): tweets (clusters of tweets sharing words) or documents (the data's documents)",
      ).choices([...PACKAGE_DEFAULTS.groupingKinds]),
    )
    .option(
      "--two-stage",
      "a two-stage chain CRF (Krishnan & Manning 2006): a first-stage CRF with the same features, jackknifed by documents, tags the data; the second stage adds its votes — the majority entity type of the same word and of the same entity string elsewhere in the document, and of the word in the whole corpus tagged — conjoined with capitalisation. Works with any preset or template; the model file embeds the first stage, and lagrange tag runs it over whole files (not streams)",
    )
    .option(
      "--folds <n>",
      `--model general: jackknife folds; the perceptron learns from chain scores of CRFs that did not see the group (1 = the full CRF's; default ${GENERAL_DEFAULTS.folds}); with ≥ 2, fold 1's groups are a held-out cut, left out of the perceptron, that chooses the epochs and a scale of the consistency weights, or none (the chain alone) unless they beat the chain there. --two-stage: jackknife folds of the first stage, whole documents to a fold (≥ 2; default 4; a task preset's mined lexicons are jackknifed over the same folds)`,
      parseInteger,
    )
    .option(
      "--epochs <n>",
      `--model general: perceptron epochs over the groups (default ${GENERAL_DEFAULTS.epochs})`,
      parseInteger,
    )
    .option(
      "--train-decoder <name>",
      `--model general: the decoder the perceptron decodes groups with: ${PACKAGE_DEFAULTS.patternDecoders.join(", ")} (default ${GENERAL_DEFAULTS.trainDecoder})`,
    )
    .option(
      "--max-group <n>",
      `--groups tweets: the largest tweet cluster (default ${GENERAL_DEFAULTS.maxGroup})`,
      parseInteger,
    )
    .option(
      "--min-overlap <n>",
      `--groups tweets: word types two tweets share to be linked (default ${GENERAL_DEFAULTS.minOverlap})`,
      parseInteger,
    )
    .addOption(
      new Option(
        "--document-constraints <mode>",
        "auto (default): with a NER task preset (ner-en, ner-es, ner-nl, ner-tweets), learn document constraints after the chain (the same name gets the same type across a document) on jackknifed folds of --data, and record them with decoder soft-dd only when a held-out fold gains with 95 % confidence (a chain CRF: not with --two-stage, --model general or --init); off: the chain alone",
      ).choices(["auto", "off"]),
    )
    .addOption(
      new Option(
        "--internal-scheme <scheme>",
        "the chunk scheme the chain CRF trains under, its gold labels converted in and its output converted back to the data's scheme (default: the task preset's choice, made on held-out data; else the data's); keep: the data's own. Not with --partial, --two-stage or --model general, which keep the data's",
      ).choices(["keep", ...PACKAGE_DEFAULTS.chunkSchemes]),
    )
    .addOption(
      presetPart(
        "--document-context",
        "each capitalised word also reads the words around its other occurrences in the document and how they are written (context aggregation, Ratinov & Roth 2009; tagging then reads a whole input at a time)",
      ),
    )
    .addOption(
      presetPart(
        "--large-gazetteers",
        "add the large gazetteers built from npm open data (people's names, towns of 15,000 people or more, country names in four languages, capitals)",
      ),
    )
    .addOption(
      presetPart(
        "--wide-clusters",
        "add a second Brown clustering of the language's raw text with 1,000 clusters beside the preset's 500 (shipped for English, else built once and cached, minutes)",
      ),
    )
    .addOption(
      presetPart(
        "--embeddings",
        "add k-means clusters (k = 100, 300, 1000) of PPMI-SVD word vectors of the language's raw text beside its Brown clusters (shipped for English and Spanish, else built once and cached, minutes)",
      ),
    )
    .option("--init <model>", "continue training from this model (Lagrange or CRFsuite)")
    .option(
      "--allow-no-progress",
      "write the model even when training made no progress (0 iterations or a diverged loss); by default that is an error (exit 1)",
    );
  addL2sTrainOptions(command)
    .requiredOption(
      "--out <model>",
      "model file to write (atomically; checked before training; never one of the inputs)",
    )
    .action(lazy(() => import("../commands/train.js"), "trainAction"));
  declareFiles(command, {
    inputs: {
      "--data": "data",
      "--dev": "data",
      "--template": "template",
      "--clusters": "clusters",
      "--lexicon": "lexicon",
      "--resources": "folder",
      "--init": "model",
    },
    outputs: ["--out"],
  });
}

/** A task preset's part switched on or off (`TaskPreset.on` decides when not given). */
function presetPart(flag: string, what: string): Option {
  return new Option(
    `${flag} <mode>`,
    `with a task preset: ${what}; default: the task preset's choice, made on held-out data`,
  ).choices(["on", "off"]);
}
