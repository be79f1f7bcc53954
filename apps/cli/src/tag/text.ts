import {
  checkTextInput,
  roundProbability,
  type SequenceTagger,
  type TaggedText,
  type TextEntity,
  tagText,
} from "@lagrange/recipes";
import { conllRecord } from "@lagrange/scale";
import { badInputError, usageError } from "../exit-codes.js";
import { readNamedInput, requireFile } from "../inputs.js";
import { writeOutput } from "../output.js";
import { note, warn } from "../progress.js";
import type { TagOptions } from "./options.js";

/** What `--output-format` writes for text input. */
export type TextOutputFormat = "entities" | "ndjson" | "conll";

/**
 * `lagrange tag` on raw text (`--text`, or `--format text` from a file or standard input): the
 * text segmented into sentences and tokens, tagged, and its entities written with their offsets
 * (one a line, by default), as NDJSON, or as CoNLL (token and label). Returns the report line.
 */
export async function tagTextInput(
  options: TagOptions,
  tagger: SequenceTagger,
  signal: AbortSignal | undefined,
): Promise<string> {
  const refused = Object.entries({
    "--threads": options.threads !== undefined,
    "--window": options.window !== undefined,
    "--on-error": options.onError !== undefined,
    "--explain": options.explain === true,
    "--marginals": options.marginals === true,
    "--probability": options.probability === true,
    "--nbest": options.nbest !== undefined,
    "--forced": options.forced === true,
    "--unlabeled": options.unlabeled === true,
  })
    .filter(([, given]) => given)
    .map(([flag]) => flag);
  if (refused.length > 0) {
    throw usageError(
      `${refused.join(", ")}: for CoNLL and NDJSON input; text input (--format text, --text) is written as entities with their probabilities`,
    );
  }
  checkTextInput(tagger);
  const format = options.outputFormat ?? "entities";
  const { text, name } = await readText(options, signal);
  const started = performance.now();
  const tagged = await tagText(tagger, text, {
    source: name,
    ...(options.lineBreaks === undefined ? {} : { lineBreaks: options.lineBreaks }),
    ...(signal === undefined ? {} : { signal }),
  });
  for (const said of [...tagger.notes, ...tagged.warnings]) warn(said);
  if (format !== "conll") note(scoreNote(tagger, tagged));
  await writeOutput(options.out, { option: "--out", signal }, async (output) => {
    for (const sentence of tagged.sentences) {
      if (format === "conll") {
        const tokens = sentence.tokens.map((t) => t.text);
        await output.write(conllRecord({ tokens, columns: [tokens] }, sentence.labels));
        continue;
      }
      let lines = "";
      for (const e of sentence.entities) lines += `${entityLine(format, e, tagged)}\n`;
      if (lines !== "") await output.write(lines);
    }
  });
  const tokens = tagged.sentences.reduce((n, s) => n + s.tokens.length, 0);
  const seconds = ((performance.now() - started) / 1000).toFixed(2);
  return `tagged ${tagged.sentences.length} sentences, ${tokens} tokens, ${tagged.entities.length} entities in ${seconds} s with ${tagger.title}${options.out === undefined ? "" : `; wrote ${options.out}`}`;
}

/** Says once what the scores are: whose probabilities, or why there are none. */
function scoreNote(tagger: SequenceTagger, tagged: TaggedText): string {
  if (tagged.scoreOf === null) {
    return `scores: none (${tagger.modelName} is ${tagger.description}, which has no marginals)`;
  }
  return tagged.scoreOf === "chain"
    ? "scores: each entity's probability under the chain CRF (scoreOf chain)"
    : `scores: each entity's probability under the chain CRF without the constraints --decoder ${tagger.decoder} decoded under (scoreOf ${tagged.scoreOf})`;
}

/** `12-22<TAB>PER<TAB>John Smith<TAB>0.97` (whitespace in the text as one space), or NDJSON. */
function entityLine(format: "entities" | "ndjson", e: TextEntity, tagged: TaggedText): string {
  const score = e.score === null ? null : roundProbability(e.score);
  if (format === "ndjson") {
    return JSON.stringify({
      start: e.start,
      end: e.end,
      type: e.type,
      text: e.text,
      score,
      ...(tagged.scoreOf === null ? {} : { scoreOf: tagged.scoreOf }),
    });
  }
  const shown = e.text.replace(/\s+/g, " ");
  return `${e.start}-${e.end}\t${e.type}\t${shown}\t${score === null ? "-" : score.toFixed(2)}`;
}

/** `--text`, or the text of `--data` (a file, or `-`/absent: standard input), as UTF-8. */
async function readText(
  options: TagOptions,
  signal: AbortSignal | undefined,
): Promise<{ readonly text: string; readonly name: string }> {
  if (options.text !== undefined) {
    if (options.text.trim() === "") throw usageError("--text: empty; give the text to tag");
    return { text: options.text, name: "--text" };
  }
  const stdin = options.data === "-";
  if (!stdin) requireFile("--data", options.data);
  const name = stdin ? "<stdin>" : options.data;
  const bytes = await readNamedInput("--data", stdin ? "/dev/stdin" : options.data, signal);
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    // Where the first bad byte is, as a line: what the user can open.
    const lenient = new TextDecoder("utf-8").decode(bytes);
    const at = lenient.indexOf("\uFFFD");
    const line = lenient.slice(0, Math.max(0, at)).split("\n").length;
    throw badInputError(`${name}:${line}: not UTF-8 text (--format text reads UTF-8)`);
  }
  if (text.includes("\0")) {
    throw badInputError(`${name}: NUL byte: expected text, found binary data`);
  }
  if (text.trim() === "") throw badInputError(`${name}: empty: no text to tag`);
  return { text, name };
}
