import { LagrangeError } from "@lagrange/core";
import { CONTEXT_KINDS, contextFeatures } from "./context.js";
import { type TokenFeatures, withTokenFeatures } from "./define-preset.js";
import { denseAttributeName, describeDenseColumns, withDenseColumns } from "./dense.js";
import { nerPreset } from "./ner.js";
import { getPreset } from "./presets.js";
import { parseTemplate } from "./template.js";
import type { Preset } from "./types.js";
import { VOTE_KINDS, voteFeatures } from "./votes.js";
import {
  type ClusterResource,
  clusterFeatures,
  DEFAULT_CLUSTER_PREFIXES,
  type LexiconResource,
  lexiconFeatures,
} from "./word-resources.js";

/**
 * Everything needed to rebuild a model's feature extractor, as plain JSON: a model file records it,
 * so tagging extracts exactly what training did with nothing looked up elsewhere (the resources
 * are embedded, not named by path).
 */
export interface FeatureSpec {
  /** A built-in preset's name (`ner`, `pos`, …), or `template` for {@link FeatureSpec.template}. */
  readonly base: string;
  /** A CRF++ template (with `base: "template"`): its text and where it came from. */
  readonly template?: { readonly text: string; readonly source: string };
  /**
   * The names of the data's input columns, left to right (`word, pos, chunk`): a template's
   * `%x[0,pos]` and the ner preset read columns by these names.
   */
  readonly columns?: readonly string[];
  readonly clusters?: readonly ClusterResource[];
  readonly lexicons?: readonly LexiconResource[];
  /** Window of the lexicon attributes (default 1). */
  readonly lexiconWindow?: number;
  /**
   * A two-stage model's second stage: the first stage's votes (`dtok`, `dent`, `ctok`) are input
   * columns `first`, `first + 1`, `first + 2` (0-based, after the data's own input columns).
   */
  readonly votes?: { readonly first: number };
  /**
   * Context aggregation over documents (Ratinov & Roth 2009; `context.ts`): the aggregates of the
   * other occurrences of each capitalised word (`ctx`, `case`) are input columns `first`,
   * `first + 1` (0-based, right after the data's own input columns and a two-stage model's votes).
   */
  readonly context?: { readonly first: number };
  /**
   * Dense input columns (0-based indices into a token's input columns, never the word's 0): each
   * cell a number, the token's real-valued attribute `dense[c+1]`. Everything else (the base
   * preset, `columns`, clusters, votes) reads the rows without them, numbered as if they were not
   * there.
   */
  readonly dense?: { readonly columns: readonly number[] };
}

/** The extractor a feature spec describes. */
export function featureExtractor(spec: FeatureSpec): Preset {
  const base = baseExtractor(spec);
  const extras: TokenFeatures[] = [];
  for (const clusters of spec.clusters ?? []) {
    extras.push(clusterFeatures(clusters) as TokenFeatures);
  }
  if (spec.lexicons !== undefined && spec.lexicons.length > 0) {
    extras.push(
      lexiconFeatures(spec.lexicons, {
        ...(spec.lexiconWindow === undefined ? {} : { window: spec.lexiconWindow }),
      }) as TokenFeatures,
    );
  }
  if (spec.votes !== undefined) extras.push(voteFeatures(spec.votes.first) as TokenFeatures);
  if (spec.context !== undefined) {
    extras.push(contextFeatures(spec.context.first) as TokenFeatures);
  }
  const description = describeSpec(spec, base);
  const extended = withTokenFeatures(base, extras, description);
  return spec.dense === undefined
    ? extended
    : withDenseColumns(extended, spec.dense.columns, description);
}

function baseExtractor(spec: FeatureSpec): Preset {
  if (spec.base === "template") {
    if (spec.template === undefined) {
      throw new LagrangeError("bad-input", "feature spec: base template without a template");
    }
    return parseTemplate(spec.template.text, {
      source: spec.template.source,
      name: "template",
      ...(spec.columns === undefined ? {} : { columnNames: spec.columns }),
    });
  }
  if (spec.base === "ner" && spec.columns !== undefined) {
    return nerPreset({ columns: spec.columns });
  }
  return getPreset(spec.base);
}

/** One line: the base and the resources, with their sizes. */
export function describeSpec(spec: FeatureSpec, base = baseExtractor(spec)): string {
  const parts = [base.description];
  for (const c of spec.clusters ?? []) {
    parts.push(
      `clusters ${c.name} (${c.words.length} words; path prefixes ${(c.prefixes ?? DEFAULT_CLUSTER_PREFIXES).join("/")}, ±${c.window ?? 1})`,
    );
  }
  if (spec.lexicons !== undefined && spec.lexicons.length > 0) {
    parts.push(
      `lexicons ${spec.lexicons.map((l) => `${l.name} (${l.entries.length})`).join(", ")}`,
    );
  }
  if (spec.votes !== undefined) {
    const { first } = spec.votes;
    parts.push(
      `first-stage votes ${VOTE_KINDS.join(", ")} (columns ${first + 1}–${first + VOTE_KINDS.length})`,
    );
  }
  if (spec.context !== undefined) {
    const { first } = spec.context;
    parts.push(
      `document context ${CONTEXT_KINDS.join(", ")} of each capitalised word's other occurrences (columns ${first + 1}–${first + CONTEXT_KINDS.length})`,
    );
  }
  if (spec.dense !== undefined) {
    const c = spec.dense.columns;
    parts.push(
      `dense columns ${describeDenseColumns(c)} (${c.length} real-valued attributes ${denseAttributeName(c[0]!)}…)`,
    );
  }
  return parts.join("; ");
}

const isStringArray = (x: unknown): x is string[] =>
  Array.isArray(x) && x.every((v) => typeof v === "string");

/**
 * A feature spec read from JSON (a model file's header), checked field by field; `where` names the
 * file in the error.
 */
export function parseFeatureSpec(value: unknown, where: string): FeatureSpec {
  const fail = (detail: string): never => {
    throw new LagrangeError("bad-input", `${where}: features: ${detail}`);
  };
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    fail("expected an object");
  }
  const v = value as Record<string, unknown>;
  if (typeof v.base !== "string") fail("base: expected a preset name or 'template'");
  if (v.template !== undefined) {
    const t = v.template as Record<string, unknown> | null;
    if (typeof t !== "object" || t === null) fail("template: expected { text, source }");
    if (typeof t!.text !== "string" || typeof t!.source !== "string") {
      fail("template: expected { text, source } strings");
    }
  }
  if (v.columns !== undefined && !isStringArray(v.columns)) fail("columns: expected names");
  const clusters = v.clusters ?? [];
  if (!Array.isArray(clusters)) fail("clusters: expected a list");
  for (const [k, c] of (clusters as unknown[]).entries()) {
    const r = c as Record<string, unknown>;
    if (typeof r !== "object" || r === null || typeof r.name !== "string") {
      fail(`clusters[${k}]: expected { name, words, paths }`);
    }
    if (!isStringArray(r.words) || !isStringArray(r.paths) || r.words.length !== r.paths.length) {
      fail(`clusters[${k}]: words and paths must be lists of strings of the same length`);
    }
    const prefixes = r.prefixes;
    if (
      prefixes !== undefined &&
      !(Array.isArray(prefixes) && prefixes.every((p) => Number.isInteger(p) && p >= 1))
    ) {
      fail(`clusters[${k}].prefixes: expected positive integers`);
    }
    if (r.window !== undefined && !(Number.isInteger(r.window) && (r.window as number) >= 0)) {
      fail(`clusters[${k}].window: expected an integer ≥ 0`);
    }
  }
  const lexicons = v.lexicons ?? [];
  if (!Array.isArray(lexicons)) fail("lexicons: expected a list");
  for (const [k, l] of (lexicons as unknown[]).entries()) {
    const r = l as Record<string, unknown>;
    if (typeof r !== "object" || r === null || typeof r.name !== "string") {
      fail(`lexicons[${k}]: expected { name, entries }`);
    }
    if (!isStringArray(r.entries)) fail(`lexicons[${k}].entries: expected strings`);
  }
  if (
    v.lexiconWindow !== undefined &&
    !(Number.isInteger(v.lexiconWindow) && (v.lexiconWindow as number) >= 0)
  ) {
    fail("lexiconWindow: expected an integer ≥ 0");
  }
  if (v.votes !== undefined) {
    const votes = v.votes as Record<string, unknown> | null;
    if (typeof votes !== "object" || votes === null || Array.isArray(votes)) {
      fail("votes: expected { first }");
    }
    if (!(Number.isInteger(votes!.first) && (votes!.first as number) >= 1)) {
      fail(
        `votes.first: expected the index (an integer ≥ 1) of the first vote column, after the word; got ${JSON.stringify(votes!.first)}`,
      );
    }
    if (Array.isArray(v.columns) && v.columns.length !== votes!.first) {
      fail(
        `votes.first is ${votes!.first}, but the votes come right after the ${v.columns.length} input column(s) named (${(v.columns as string[]).join(", ")})`,
      );
    }
  }
  if (v.context !== undefined) {
    const context = v.context as Record<string, unknown> | null;
    if (typeof context !== "object" || context === null || Array.isArray(context)) {
      fail("context: expected { first }");
    }
    const first = context!.first;
    if (!(Number.isInteger(first) && (first as number) >= 1)) {
      fail(
        `context.first: expected the index (an integer ≥ 1) of the first context column, after the word; got ${JSON.stringify(first)}`,
      );
    }
    // After the data's input columns, and after a two-stage model's votes where there are some.
    const votes = v.votes === undefined ? 0 : VOTE_KINDS.length;
    if (Array.isArray(v.columns) && v.columns.length + votes !== first) {
      fail(
        `context.first is ${first}, but the context comes right after the ${v.columns.length} input column(s) named (${(v.columns as string[]).join(", ")})${votes === 0 ? "" : " and the votes"}`,
      );
    }
  }
  if (v.dense !== undefined) {
    const dense = v.dense as Record<string, unknown> | null;
    const columns = typeof dense === "object" && dense !== null ? dense.columns : undefined;
    if (
      !Array.isArray(columns) ||
      columns.length === 0 ||
      !columns.every((c) => Number.isInteger(c) && (c as number) >= 1) ||
      new Set(columns).size !== columns.length
    ) {
      fail(
        `dense: expected { columns } of distinct column indices ≥ 1; got ${JSON.stringify(v.dense)}`,
      );
    }
  }
  const spec = value as FeatureSpec;
  try {
    baseExtractor(spec);
  } catch (error) {
    if (error instanceof LagrangeError) fail(error.message);
    throw error;
  }
  return spec;
}
