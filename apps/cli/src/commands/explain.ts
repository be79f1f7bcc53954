import type { DecoderOptionValue } from "@lagrange/core";
import { tokenPlace } from "@lagrange/datasets";
import {
  type ConstraintTerm,
  InfeasibleSentenceError,
  type SentenceExplanation,
  type TokenExplanation,
} from "@lagrange/recipes";
import { decoderOptionsGiven } from "../decoder-flags.js";
import { badInputError, usageError } from "../exit-codes.js";
import { interruptible } from "../interruption.js";
import { openCommandTagger, readTagData } from "../tag/options.js";

export interface ExplainOptions {
  readonly model: string;
  readonly data: string;
  /** 1-based. */
  readonly sentence?: number;
  readonly format?: string;
  readonly decoder?: string;
  readonly decoderOptions?: Readonly<Record<string, DecoderOptionValue>>;
  readonly constraints?: string;
  readonly top?: number;
  readonly compare?: readonly string[];
  readonly unlabeled?: boolean;
  readonly malformed?: "error" | "repair" | "skip";
  readonly json?: boolean;
}

/** Contributions shown per token by default. */
const DEFAULT_TOP = 5;

/** `lagrange explain`: one sentence decoded and its labels' scores broken down; returns the text. */
export async function explainCommand(
  options: ExplainOptions,
  signal?: AbortSignal,
): Promise<string> {
  const tagger = await openCommandTagger(options, signal);
  if (!tagger.can.explain) {
    throw usageError(
      `lagrange explain breaks down a linear-chain CRF's scores, read through its feature preset; ${options.model} is ${tagger.description}`,
    );
  }
  const read = await readTagData(options, signal);
  const { sentences } = tagger.input(read, options.unlabeled === true ? "none" : "auto");
  const k = options.sentence ?? 1;
  if (k > sentences.length) {
    throw usageError(`--sentence ${k}: ${options.data} has ${sentences.length} sentences`);
  }
  const sentence = sentences[k - 1]!;
  const compare = options.compare ?? [];
  if (compare.includes("runner-up") && compare.length > 1) {
    throw usageError("--compare runner-up stands alone (the runner-up differs token by token)");
  }
  for (const label of compare) {
    if (label !== "runner-up" && !tagger.labels.includes(label)) {
      throw usageError(
        `--compare ${label}: the model has no such label (lagrange info ${options.model} lists them)`,
      );
    }
  }
  let shown: SentenceExplanation;
  try {
    // The whole batch: a two-stage model's votes are counted over it.
    shown = await tagger.explain(sentences, k - 1, {
      top: options.top ?? DEFAULT_TOP,
      ...(compare.length === 0
        ? {}
        : { compare: compare[0] === "runner-up" ? "runner-up" : compare }),
      ...(signal === undefined ? {} : { signal }),
    });
  } catch (error) {
    if (error instanceof InfeasibleSentenceError) {
      throw badInputError(`${tokenPlace(sentence, 0)}: ${error.message}`);
    }
    throw error;
  }
  const place = tokenPlace(sentence, 0);
  const gold = sentence.labels;
  if (options.json === true) {
    return `${JSON.stringify(
      {
        sentence: k,
        of: sentences.length,
        place,
        decoder: tagger.decoder,
        ...(gold === undefined ? {} : { gold }),
        ...shown,
      },
      (_, value: unknown) =>
        typeof value === "number" && !Number.isFinite(value) ? String(value) : value,
    )}\n`;
  }
  return renderExplanation(shown, {
    heading: `sentence ${k} of ${sentences.length} (${place}), ${shown.tokens.length} tokens; decoder ${tagger.decoder}`,
    gold,
  });
}

const signed = (x: number) => (x >= 0 ? `+${x.toFixed(3)}` : `−${(-x).toFixed(3)}`);
const plain = (x: number) =>
  Number.isFinite(x) ? x.toFixed(3).replace("-", "−") : x > 0 ? "+∞" : "−∞";

/** A readable table per token: label and total, top features ±, transition, λ terms, margin. */
export function renderExplanation(
  shown: SentenceExplanation,
  meta: { readonly heading: string; readonly gold: readonly string[] | undefined },
): string {
  const d = shown.decoding;
  const constrained =
    shown.constraints.length > 0 || shown.perToken.some((t) => t.chosen.label !== t.unconstrained);
  const lines = [
    meta.heading,
    `${d.status}${d.certified ? ", certified" : ""}, ${d.iterations} iteration${d.iterations === 1 ? "" : "s"}; chain score ${plain(shown.score)}${constrained ? `, penalties paid ${plain(shown.penaltyPaid)}, objective ${plain(shown.objective)}` : ""}`,
    "",
  ];
  for (const token of shown.perToken) lines.push(...tokenLines(token, meta.gold?.[token.index]));
  if (shown.constraints.length > 0) {
    lines.push("constraints (λ > 0, or broken by a labelling):");
    for (const c of shown.constraints) {
      const penalty = c.penalty === null ? "hard" : `penalty ${c.penalty.toFixed(3)}`;
      lines.push(
        `  λ ${c.multiplier.toFixed(3)}  ${penalty}  violation ${fmt(c.violationBefore)} → ${fmt(c.violation)}  ${c.name}`,
      );
    }
    lines.push(
      `Lagrangian: chain ${plain(shown.score)} + λ terms ${plain(shown.lagrangian.value - shown.score - shown.lagrangian.constant)} + Σλ·rhs ${plain(shown.lagrangian.constant)} = ${plain(shown.lagrangian.value)}`,
    );
  }
  return `${lines.join("\n")}\n`;
}

function fmt(x: number): string {
  return (Number.isInteger(x) ? String(x) : x.toFixed(2)).replace("-", "−");
}

function tokenLines(token: TokenExplanation, gold: string | undefined): string[] {
  const c = token.chosen;
  const moved = c.label === token.unconstrained ? "" : ` (chain alone: ${token.unconstrained})`;
  const wrong = gold === undefined || gold === c.label ? "" : ` [gold ${gold}]`;
  const out = [
    `${token.index + 1}  ${token.token}  → ${c.label}${moved}${wrong}`,
    `   score ${signed(c.total)} = state ${signed(c.state)} + transition ${signed(c.transition)}${c.boundary === 0 ? "" : ` + start/end ${signed(c.boundary)}`}${token.unknownAttributes === 0 ? "" : `  (${token.unknownAttributes} attributes unknown to the model)`}`,
  ];
  out.push(...scoreLines(c, "   "));
  if (token.constraintTerms.length > 0 || token.constraintTerm !== 0) {
    out.push(`   constraints ${signed(token.constraintTerm)} on ${c.label}`);
    out.push(...termLines(token.constraintTerms));
    if (token.omittedTerms > 0)
      out.push(`      (${token.omittedTerms} more term${token.omittedTerms === 1 ? "" : "s"})`);
  }
  if (token.unconstrainedTerms.length > 0) {
    out.push(`   constraints on ${token.unconstrained}:`);
    out.push(...termLines(token.unconstrainedTerms));
  }
  for (const [k, other] of token.compared.entries()) {
    out.push(
      `   compare ${other.label}: ${signed(other.total)} = state ${signed(other.state)} + transition ${signed(other.transition)}${other.boundary === 0 ? "" : ` + start/end ${signed(other.boundary)}`}`,
    );
    out.push(...scoreLines(other, "     "));
    out.push(...termLines(token.comparedTerms[k] ?? []));
  }
  if (token.runnerUp !== null) {
    out.push(`   runner-up ${token.runnerUp}, margin ${plain(token.margin)}`);
  }
  out.push("");
  return out;
}

function scoreLines(c: TokenExplanation["chosen"], indent: string): string[] {
  const out: string[] = [];
  for (const f of c.features) {
    const value = f.value === 1 ? "" : `  (${fmt(f.value)} × ${signed(f.weight)})`;
    out.push(`${indent}  ${signed(f.contribution)}  ${f.attribute}${value}`);
  }
  if (c.omittedFeatures.count > 0) {
    out.push(
      `${indent}  ${signed(c.omittedFeatures.sum)}  (${c.omittedFeatures.count} more features)`,
    );
  }
  if (c.previous !== null) {
    out.push(`${indent}  ${signed(c.bigram)}  transition ${c.previous} → ${c.label}`);
    for (const f of c.conditioned) {
      out.push(`${indent}  ${signed(f.contribution)}  ${f.attribute} (${c.previous} → ${c.label})`);
    }
  }
  return out;
}

function termLines(terms: readonly ConstraintTerm[]): string[] {
  return terms.map(
    (t) =>
      `      ${signed(t.term)}  λ ${t.multiplier.toFixed(3)} × ${fmt(t.coefficient)}  ${t.name}`,
  );
}

/** What `lagrange explain` does (its options are declared in ../define/explain.ts). */
export async function explainAction(opts: ExplainOptions & Record<string, unknown>): Promise<void> {
  const decoderOptions = decoderOptionsGiven(opts, []);
  const text = await interruptible((signal) => explainCommand({ ...opts, decoderOptions }, signal));
  process.stdout.write(text);
}
