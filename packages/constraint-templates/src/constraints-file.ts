import { type JsonValue, LagrangeError } from "@lagrange/core";
import { LABEL_SCHEMES, type LabelScheme } from "@lagrange/datasets";
import type { WeightedTemplate } from "./candidates.js";
import { SegmentIndex, type SegmentKeying } from "./segments.js";
import type { TemplateSpec } from "./template.js";
import { templateFromSpec } from "./templates.js";

export const CONSTRAINTS_FORMAT = "lagrange-constraints";
export const CONSTRAINTS_VERSION = 1;

/** Core's JSON value type, re-exported where this package's API has always named it. */
export type { JsonValue };

export interface ConstraintsFileEntry extends WeightedTemplate {
  /** imp(c) on the set it was computed on (may be +∞). */
  readonly importance?: number;
  readonly goldViolations?: number;
  readonly predictedViolations?: number;
}

/**
 * How document-scoped constraints group sentences: by their documents (CoNLL `-DOCSTART-`, a
 * `.docs` file), or, for data that marks none, into the general CRF's size-bounded tweet groups.
 */
export type DocumentGrouping = "documents" | "tweets";
export const DOCUMENT_GROUPINGS: readonly DocumentGrouping[] = ["documents", "tweets"];

/**
 * A learned constraint set: the label set and scheme it refers to (`index.labels`,
 * `index.lattice.scheme`), each template and its penalty.
 */
export interface ConstraintsFile {
  readonly index: SegmentIndex;
  readonly entries: readonly ConstraintsFileEntry[];
  /**
   * The grouping the document constraints were learned with, which tagging must use too;
   * undefined (files that record none): `documents`.
   */
  readonly groups?: DocumentGrouping;
  /** Free-form provenance (learning algorithm, epochs, data files, …). */
  readonly metadata?: { readonly [key: string]: JsonValue };
}

/** A malformed constraints file: names the file, the line when known and the JSON path. */
export class ConstraintsFileError extends LagrangeError {
  override readonly name = "ConstraintsFileError";
  constructor(
    readonly file: string,
    readonly path: string,
    readonly line: number | undefined,
    message: string,
  ) {
    super(
      "bad-input",
      `${file}${line === undefined ? "" : `:${line}`}: ${path === "" ? "" : `${path}: `}${message}`,
    );
  }
}

/**
 * Writes the versioned JSON format: a header, then one constraint per line (easy to diff, and
 * parse errors can point at a line). Each constraint carries its id, its rule in words, its
 * family, the spec that rebuilds it and its penalty (`null` = hard).
 */
export function serializeConstraintsFile(file: ConstraintsFile): string {
  const header = {
    format: CONSTRAINTS_FORMAT,
    version: CONSTRAINTS_VERSION,
    segmentKeying: file.index.keying,
    scheme: file.index.lattice.scheme,
    labels: file.index.labels.names(),
    ...(file.groups === undefined ? {} : { groups: file.groups }),
    ...(file.metadata === undefined ? {} : { metadata: file.metadata }),
  };
  const lines = file.entries.map((e) => {
    const entry: Record<string, JsonValue> = {
      id: e.template.id,
      description: e.template.describe(),
      family: e.template.family,
      penalty: e.penalty,
      spec: e.template.spec as unknown as JsonValue,
    };
    if (e.importance !== undefined) {
      entry.importance = Number.isFinite(e.importance) ? e.importance : "Infinity";
    }
    if (e.goldViolations !== undefined) entry.goldViolations = e.goldViolations;
    if (e.predictedViolations !== undefined) entry.predictedViolations = e.predictedViolations;
    return `    ${JSON.stringify(entry)}`;
  });
  const head = JSON.stringify(header, null, 2);
  return `${head.slice(0, -2)},\n  "constraints": [\n${lines.join(",\n")}\n  ]\n}\n`;
}

export interface ParseConstraintsOptions {
  /** File name used in error messages. */
  readonly source?: string;
  /** The model's labels: parsing fails when the file was learned for other labels. */
  readonly expectedLabels?: readonly string[];
  /**
   * The model's label scheme: the file's segments are read under it when the file records none
   * (files written before schemes were recorded, hand-written files); a file that records
   * another scheme is refused.
   */
  readonly scheme?: LabelScheme;
}

/** How a file that records no scheme was read before schemes were recorded: B-/I- labels. */
function legacyScheme(labels: readonly string[]): LabelScheme {
  return labels.some((label) => label.includes("/")) ? "hierarchical-BIO" : "IOB2";
}

/** Reads and validates a constraints file, rebuilding each template against its label set. */
export function parseConstraintsFile(
  text: string,
  options: ParseConstraintsOptions = {},
): ConstraintsFile {
  const file = options.source ?? "<constraints>";
  let root: unknown;
  try {
    root = JSON.parse(text);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const at = /position (\d+)/.exec(message);
    const line = at === null ? undefined : lineOf(text, Number(at[1]));
    throw new ConstraintsFileError(file, "", line, `not valid JSON (${message})`);
  }
  const fail = (path: string, message: string, needle?: string): never => {
    throw new ConstraintsFileError(
      file,
      path,
      needle === undefined ? undefined : findLine(text, needle),
      message,
    );
  };
  if (!isObject(root)) return fail("", "expected a JSON object");
  if (root.format !== CONSTRAINTS_FORMAT) {
    fail(
      "format",
      `expected "${CONSTRAINTS_FORMAT}", got ${JSON.stringify(root.format)}`,
      '"format"',
    );
  }
  if (root.version !== CONSTRAINTS_VERSION) {
    const newer = typeof root.version === "number" && root.version > CONSTRAINTS_VERSION;
    fail(
      "version",
      newer
        ? `version ${root.version} was written by a newer lagrange; this reader supports version ${CONSTRAINTS_VERSION}`
        : `expected ${CONSTRAINTS_VERSION}, got ${JSON.stringify(root.version)}`,
      '"version"',
    );
  }
  const keying = root.segmentKeying ?? "path";
  if (keying !== "path" && keying !== "name") {
    fail(
      "segmentKeying",
      `expected "path" or "name", got ${JSON.stringify(keying)}`,
      '"segmentKeying"',
    );
  }
  const labels = root.labels;
  if (
    !Array.isArray(labels) ||
    labels.length === 0 ||
    !labels.every((l) => typeof l === "string")
  ) {
    return fail("labels", "expected a non-empty array of label names", '"labels"');
  }
  if (new Set(labels).size !== labels.length)
    fail("labels", "label names must be unique", '"labels"');
  if (options.expectedLabels !== undefined) {
    const expected = options.expectedLabels;
    const differs =
      expected.length !== labels.length ? -2 : expected.findIndex((name, i) => labels[i] !== name);
    if (differs !== -1) {
      fail(
        "labels",
        differs === -2
          ? `the file has ${labels.length} labels, the model ${expected.length}: learned for another model`
          : `label ${differs} is "${labels[differs]}" in the file but "${expected[differs]}" in the model`,
        '"labels"',
      );
    }
  }
  const recorded = root.scheme;
  if (
    recorded !== undefined &&
    (typeof recorded !== "string" || !(LABEL_SCHEMES as readonly string[]).includes(recorded))
  ) {
    fail(
      "scheme",
      `expected one of ${LABEL_SCHEMES.join(", ")}, got ${JSON.stringify(recorded)}`,
      '"scheme"',
    );
  }
  if (recorded !== undefined && options.scheme !== undefined && recorded !== options.scheme) {
    fail(
      "scheme",
      `the file's constraints were written for ${recorded} labels, the model's scheme is ${options.scheme}: learn or write them for this model's scheme`,
      '"scheme"',
    );
  }
  const scheme =
    (recorded as LabelScheme | undefined) ?? options.scheme ?? legacyScheme(labels as string[]);
  let index: SegmentIndex;
  try {
    index = new SegmentIndex(labels as string[], scheme, keying as SegmentKeying);
  } catch (error) {
    return fail("labels", error instanceof Error ? error.message : String(error), '"labels"');
  }
  const groups = root.groups;
  if (groups !== undefined && !(DOCUMENT_GROUPINGS as readonly unknown[]).includes(groups)) {
    fail(
      "groups",
      `expected ${DOCUMENT_GROUPINGS.map((g) => `"${g}"`).join(" or ")}, got ${JSON.stringify(groups)}`,
      '"groups"',
    );
  }
  const constraints = root.constraints;
  if (!Array.isArray(constraints)) return fail("constraints", "expected an array", '"constraints"');
  const seen = new Set<string>();
  const entries: ConstraintsFileEntry[] = constraints.map(
    (raw: unknown, i): ConstraintsFileEntry => {
      const path = `constraints[${i}]`;
      const needle =
        isObject(raw) && typeof raw.id === "string" ? JSON.stringify(raw.id) : undefined;
      const bad = (field: string, message: string): never =>
        fail(`${path}${field}`, message, needle);
      if (!isObject(raw)) return bad("", "expected an object");
      const spec = parseSpec(raw.spec, (field, message) => bad(`.spec${field}`, message));
      let template: ReturnType<typeof templateFromSpec>;
      try {
        template = templateFromSpec(spec, index);
      } catch (error) {
        return bad(".spec", error instanceof Error ? error.message : String(error));
      }
      if (raw.id !== undefined && raw.id !== template.id) {
        bad(
          ".id",
          `expected "${template.id}" (the id its spec implies), got ${JSON.stringify(raw.id)}`,
        );
      }
      if (seen.has(template.id)) bad(".id", `duplicate constraint "${template.id}"`);
      seen.add(template.id);
      const penalty = raw.penalty;
      if (
        !(
          penalty === null ||
          (typeof penalty === "number" && Number.isFinite(penalty) && penalty >= 0)
        )
      ) {
        bad(
          ".penalty",
          `expected a finite number ≥ 0 or null (hard), got ${JSON.stringify(penalty)}`,
        );
      }
      const entry: {
        template: typeof template;
        penalty: number | null;
        importance?: number;
        goldViolations?: number;
        predictedViolations?: number;
      } = { template, penalty: penalty as number | null };
      if (raw.importance !== undefined) {
        const v = raw.importance === "Infinity" ? Number.POSITIVE_INFINITY : raw.importance;
        if (typeof v !== "number" || Number.isNaN(v) || v < 0) {
          bad(
            ".importance",
            `expected a number ≥ 0 or "Infinity", got ${JSON.stringify(raw.importance)}`,
          );
        }
        entry.importance = v as number;
      }
      for (const key of ["goldViolations", "predictedViolations"] as const) {
        const v = raw[key];
        if (v === undefined) continue;
        if (!(typeof v === "number" && Number.isInteger(v) && v >= 0)) {
          bad(`.${key}`, `expected an integer ≥ 0, got ${JSON.stringify(v)}`);
        }
        entry[key] = v as number;
      }
      return entry;
    },
  );
  const metadata = root.metadata;
  if (metadata !== undefined && !isObject(metadata))
    fail("metadata", "expected an object", '"metadata"');
  return {
    index,
    entries,
    ...(groups === undefined ? {} : { groups: groups as DocumentGrouping }),
    ...(metadata === undefined ? {} : { metadata: metadata as { [key: string]: JsonValue } }),
  };
}

function parseSpec(raw: unknown, bad: (field: string, message: string) => never): TemplateSpec {
  if (!isObject(raw)) return bad("", "expected an object with a `kind`");
  const str = (key: string): string => {
    const v = raw[key];
    if (typeof v !== "string" || v.length === 0)
      return bad(`.${key}`, `expected a non-empty string, got ${JSON.stringify(v)}`);
    return v;
  };
  switch (raw.kind) {
    case "singleton":
      return { kind: "singleton", segment: str("segment") };
    case "pairwise-sum":
    case "pairwise-difference": {
      const bound = raw.bound;
      if (typeof bound !== "number" || !Number.isInteger(bound) || bound < 0) {
        return bad(".bound", `expected an integer ≥ 0, got ${JSON.stringify(bound)}`);
      }
      return { kind: raw.kind, first: str("first"), second: str("second"), bound };
    }
    case "hierarchical":
    case "adjacency":
    case "precedence":
    case "begin-end":
    case "presence-precedence":
      return { kind: raw.kind, first: str("first"), second: str("second") };
    case "state-change":
      return {
        kind: "state-change",
        delimiter: str("delimiter"),
        first: str("first"),
        second: str("second"),
      };
    case "same-string":
    case "acronym": {
      const most = raw.maxOccurrences;
      if (most === undefined) return { kind: raw.kind, type: str("type") };
      if (typeof most !== "number" || !Number.isInteger(most) || most < 2) {
        return bad(".maxOccurrences", `expected an integer ≥ 2, got ${JSON.stringify(most)}`);
      }
      return { kind: raw.kind, type: str("type"), maxOccurrences: most };
    }
    default:
      return bad(
        ".kind",
        `expected one of singleton, pairwise-sum, pairwise-difference, hierarchical, adjacency, precedence, state-change, begin-end, presence-precedence, same-string, acronym; got ${JSON.stringify(raw.kind)}`,
      );
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function lineOf(text: string, position: number): number {
  let line = 1;
  for (let i = 0; i < position && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

function findLine(text: string, needle: string): number | undefined {
  const at = text.indexOf(needle);
  return at < 0 ? undefined : lineOf(text, at);
}
