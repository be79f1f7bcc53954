import { checkpoints, LagrangeError } from "@lagrange/core";
import { CONLLU_FIELDS, type ConlluSentence, formatConllu } from "@lagrange/datasets";
import {
  chainTagger,
  conlluSentences,
  isTagFailure,
  L2S_TAGGER_TASK,
  l2sParserOf,
  parseWithL2s,
  standardDecoders,
  tagWithL2s,
} from "@lagrange/recipes";
import { usageError } from "../exit-codes.js";
import { openData } from "../inputs.js";
import { interruptible } from "../interruption.js";
import { type AnyModel, describeModel, readAnyModel, requireL2sTagger } from "../l2s-models.js";
import { writeOutput } from "../output.js";
import { note, progressBar, warn } from "../progress.js";

export interface ParseOptions {
  /** A parser model (`lagrange train --learner l2s --task parser`). */
  readonly model: string;
  /** The CoNLL-U to parse (the positional argument, or `--data`). */
  readonly data?: string;
  /** A tagger (CRF or L2S) whose predictions replace the POS field the parser reads. */
  readonly tagger?: string;
  readonly out?: string;
}

/** Sentences parsed between checkpoints (Ctrl-C) and progress updates. */
const BATCH = 64;

/**
 * `lagrange parse`: CoNLL-U in, the same CoNLL-U out with HEAD and DEPREL from the parser (every
 * other field, comment, multiword-token and empty-node line kept; with `--tagger`, the POS field
 * the parser reads holds the tagger's predictions). Returns the report line (stderr).
 */
export async function parseCommand(options: ParseOptions, signal?: AbortSignal): Promise<string> {
  if (options.data === undefined) {
    throw usageError(
      "lagrange parse needs the CoNLL-U to parse: an input file (or registry name[:split]) argument, or --data",
    );
  }
  const parserModel = await readAnyModel(options.model, "--model", signal);
  const parser = requireParser(parserModel, options.model);
  const tagger =
    options.tagger === undefined ? undefined : await readTagger(options.tagger, parser.tagField);
  return writeOutput(options.out, { option: "--out", signal }, async (output) => {
    // CoNLL-U whatever the file's extension: the parser writes HEAD and DEPREL.
    const corpus = await openData("--data", options.data!, {
      format: "conllu",
      defaultSplit: "dev",
      ...(signal === undefined ? {} : { signal }),
    });
    let sentences = conlluSentences(corpus, "parsing");
    const field = CONLLU_FIELDS.indexOf(parser.tagField);
    let taggingSeconds = 0;
    if (tagger !== undefined) {
      const started = performance.now();
      sentences = withTags(sentences, field, await tagger.tag(sentences));
      taggingSeconds = (performance.now() - started) / 1000;
    } else if (sentences.every((s) => s.columns[field]!.every((tag) => tag === "_"))) {
      warn(
        `${corpus.label} has no ${parser.tagField} tags (every one is _) and the parser reads them: give --tagger a POS tagger to predict them`,
      );
    }
    const bar = progressBar(
      "parse",
      sentences.length,
      options.out !== undefined && process.stderr.isTTY,
    );
    const checkpoint = checkpoints(signal);
    const started = performance.now();
    let words = 0;
    try {
      for (let from = 0; from < sentences.length; from += BATCH) {
        if (checkpoint.due()) await checkpoint.pause();
        const batch = sentences.slice(from, from + BATCH);
        const parsed = parseWithL2s(parser, batch);
        for (const s of batch) words += s.tokens.length;
        await output.write(formatConllu(parsed));
        bar.update(Math.min(from + BATCH, sentences.length));
      }
    } finally {
      bar.stop();
    }
    const seconds = (performance.now() - started) / 1000;
    const rate = (k: number) => (seconds > 0 ? (k / seconds).toFixed(0) : "∞");
    return `parsed ${sentences.length} sentences, ${words} words in ${seconds.toFixed(2)} s (${rate(sentences.length)} sentences/s, ${rate(words)} words/s)${tagger === undefined ? "" : `; ${parser.tagField} predicted by ${tagger.what} in ${taggingSeconds.toFixed(2)} s`}${options.out === undefined ? "" : `; wrote ${options.out}`}`;
  });
}

/** The parser of a model file, or a usage error saying what the model is and where it goes. */
function requireParser(model: AnyModel, path: string) {
  if (model.kind === "crf" || model.model.task === L2S_TAGGER_TASK) {
    throw usageError(
      `--model ${path} is ${describeModel(model)}, not a parser: tag with it (lagrange tag --model ${path}), or give it to parse as --tagger to predict the POS tags; a parser is trained by lagrange train --learner l2s --task parser`,
    );
  }
  return l2sParserOf(model.model);
}

interface PosTagger {
  /** "the L2S tagger t.l2s". */
  readonly what: string;
  tag(sentences: readonly ConlluSentence[]): Promise<string[][]>;
}

/** `--tagger`: a CRF or L2S tagger, whichever the file is. */
async function readTagger(path: string, field: string): Promise<PosTagger> {
  const model = await readAnyModel(path, "--tagger");
  if (model.kind === "l2s") {
    const tagger = requireL2sTagger(model.model, path, "--tagger");
    const registry = standardDecoders();
    return {
      what: `the L2S tagger ${path}`,
      tag: async (sentences) => tagWithL2s(tagger, sentences, registry),
    };
  }
  note(`--tagger ${path}: a CRF tagger, decoded with viterbi; its labels become ${field}`);
  const tagger = chainTagger(model.model, { modelName: path });
  return {
    what: `the CRF tagger ${path}`,
    tag: async (sentences) =>
      (await tagger.tag(sentences, { stopAtFailure: true })).items.map((item) => {
        if (isTagFailure(item))
          throw new LagrangeError("bad-input", `${item.place}: ${item.reason}`);
        return [...item.labels];
      }),
  };
}

/** The sentences with one field replaced by predicted tags (`labels` follows when it is that field). */
function withTags(
  sentences: readonly ConlluSentence[],
  field: number,
  tags: readonly string[][],
): ConlluSentence[] {
  return sentences.map((sentence, k) => {
    const columns = [...sentence.columns];
    const predicted = tags[k]!;
    columns[field] = predicted;
    const out: ConlluSentence = { ...sentence, columns };
    if (sentence.labels === sentence.columns[field]) out.labels = predicted;
    return out;
  });
}

/** What `lagrange parse` does (its options are declared in ../define/parse.ts). */
export async function parseAction(input: string | undefined, opts: ParseOptions): Promise<void> {
  if (input !== undefined && opts.data !== undefined) {
    throw usageError(`the input ${input} and --data ${opts.data}: give one of them`);
  }
  const options = { ...opts, ...(input === undefined ? {} : { data: input }) };
  note(await interruptible((signal) => parseCommand(options, signal)));
}
