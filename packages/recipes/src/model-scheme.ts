import type { CrfModel } from "@lagrange/chain-crf";
import { type LabelRestriction, LagrangeError, type TransitionMask } from "@lagrange/core";
import {
  convertScheme,
  decodingMask,
  encodeSpans,
  extractSpans,
  LABEL_SCHEMES,
  type LabelScheme,
  SCHEME_NAMES,
  type SchemeName,
  type Span,
  schemeLabels,
} from "@lagrange/datasets";
import { type OutputMarginals, outputMarginals } from "./tagging/output-marginals.js";

/** The label scheme a model was trained under (recorded in its settings; `none` when absent). */
export function modelScheme(model: CrfModel): LabelScheme {
  const { scheme } = model;
  if (scheme === null) return "none";
  if ((LABEL_SCHEMES as readonly string[]).includes(scheme)) {
    return scheme as LabelScheme;
  }
  // A model file is input: an unreadable scheme in it is malformed input, not a usage error.
  throw new LagrangeError(
    "bad-input",
    `the model's settings.scheme is ${JSON.stringify(scheme)}; expected one of ${LABEL_SCHEMES.join(", ")}`,
  );
}

/**
 * The decoding constraints of a model: the ones it carries (a freshly trained model), else the
 * mask of its recorded scheme (a model file stores the scheme, not the mask).
 */
export function modelDecodingConstraints(model: CrfModel): TransitionMask {
  if (model.constraints.allowed !== undefined) return model.constraints;
  return decodingMask(model.labels.names(), modelScheme(model)) ?? {};
}

/**
 * The scheme of the labels a model's users see: `settings.outputScheme` where the model was
 * trained under an internal scheme (a NER task preset's BIOES over IOB1 data), else its own.
 */
export function modelOutputScheme(model: CrfModel): LabelScheme {
  return modelSchemes(model)?.output ?? modelScheme(model);
}

/** A flat chunk scheme (one that converts to another). */
export function isChunkScheme(scheme: LabelScheme): scheme is SchemeName {
  return (SCHEME_NAMES as readonly string[]).includes(scheme);
}

/** The internal and output schemes of a model that records both and they differ; else null. */
function modelSchemes(model: CrfModel): { internal: SchemeName; output: SchemeName } | null {
  const output = model.settings.outputScheme;
  if (output === undefined) return null;
  const internal = modelScheme(model);
  if (
    typeof output !== "string" ||
    !isChunkScheme(output as LabelScheme) ||
    !isChunkScheme(internal)
  ) {
    throw new LagrangeError(
      "bad-input",
      `the model's settings.outputScheme is ${JSON.stringify(output)} over scheme ${internal}; expected two of ${SCHEME_NAMES.join(", ")}`,
    );
  }
  return output === internal ? null : { internal, output: output as SchemeName };
}

/**
 * Labels between a model's internal scheme and the scheme its users read and write (see
 * {@link modelOutputScheme}): identity for a model trained under the data's own scheme.
 */
export interface SchemeEdge {
  /** The labels output is named by, in order: the output scheme's over the model's types. */
  readonly labels: readonly string[];
  readonly scheme: LabelScheme;
  /** A labelling in the model's labels, as the user's. */
  out(labels: string[]): string[];
  /** Gold labels in the user's scheme as the model's; undefined where they are not of it. */
  in(labels: readonly string[]): readonly string[] | undefined;
  /**
   * A restriction over {@link labels} (forced decoding: n × labels.length) as one over the
   * model's labels: each internal label that can stand for an allowed output label somewhere.
   * Exact where a token's output label follows from its own internal label (IOB2, IOE2); under
   * IOB1 and IOE1 a forced `B-`/`E-` also needs its neighbour's type, which the chain decides.
   */
  liftRestriction(restriction: LabelRestriction, n: number): LabelRestriction;
  /**
   * Token marginals over the model's labels as ones over {@link labels}; undefined where the
   * two are the same labels (the marginals are then the model's as they are).
   */
  readonly marginals: OutputMarginals | undefined;
}

/** The {@link SchemeEdge} of a model. */
export function schemeEdge(model: CrfModel): SchemeEdge {
  const schemes = modelSchemes(model);
  const names = model.labels.names();
  if (schemes === null) {
    return {
      labels: names,
      scheme: modelScheme(model),
      out: (labels) => labels,
      in: (labels) => labels,
      liftRestriction: (restriction) => restriction,
      marginals: undefined,
    };
  }
  const { internal, output } = schemes;
  const types: string[] = [];
  for (const name of names) {
    const type = extractSpans([name], internal)[0]?.type;
    if (type !== undefined && !types.includes(type)) types.push(type);
  }
  const labels = schemeLabels(types, output);
  let compatible: Uint8Array | undefined;
  let marginals: OutputMarginals | undefined;
  return {
    labels,
    scheme: output,
    out: (y) => convertScheme(y, internal, output),
    in: (y) => {
      try {
        return convertScheme(y, output, internal);
      } catch {
        return undefined;
      }
    },
    liftRestriction: (restriction, n) => {
      compatible ??= compatibleLabels(names, labels, types, internal, output);
      const L = names.length;
      const J = labels.length;
      const lifted = new Uint8Array(n * L);
      for (let i = 0; i < n; i++) {
        for (let j = 0; j < J; j++) {
          if (restriction[i * J + j] !== 1) continue;
          for (let k = 0; k < L; k++) if (compatible[k * J + j] === 1) lifted[i * L + k] = 1;
        }
      }
      return lifted;
    },
    // Built when first asked for: its tables convert every window of labels once.
    get marginals() {
      marginals ??= outputMarginals(names, labels, internal, output);
      return marginals;
    },
  };
}

/**
 * Which output label each internal label can stand for (L × J): read off every layout of spans
 * of two types over four tokens, encoded in both schemes (a token's label depends on its
 * neighbours' at most), then carried over to the model's types by their position in the scheme.
 */
function compatibleLabels(
  names: readonly string[],
  labels: readonly string[],
  types: readonly string[],
  internal: SchemeName,
  output: SchemeName,
): Uint8Array {
  // A label's type and tag by its place in schemeLabels' order over `list`'s types (tag −1: O).
  const placer = (list: readonly string[], scheme: SchemeName) => {
    const labelsOf = schemeLabels(list, scheme);
    const width = schemeLabels(["A"], scheme).length - 1;
    return (label: string) => {
      const at = labelsOf.indexOf(label);
      if (at <= 0) return { type: -1, tag: -1, known: at === 0 };
      return { type: Math.floor((at - 1) / width), tag: (at - 1) % width, known: true };
    };
  };
  const placeholder = ["A", "B"];
  const inside = placer(placeholder, internal);
  const outside = placer(placeholder, output);
  const pairs = new Set<string>();
  for (const spans of spanLayouts(4, placeholder)) {
    const a = encodeSpans(spans, 4, internal);
    const b = encodeSpans(spans, 4, output);
    for (let t = 0; t < 4; t++) pairs.add(`${inside(a[t]!).tag},${outside(b[t]!).tag}`);
  }
  const from = names.map(placer(types, internal));
  const to = labels.map(placer(types, output));
  const L = names.length;
  const J = labels.length;
  const out = new Uint8Array(L * J);
  for (let k = 0; k < L; k++) {
    const f = from[k]!;
    for (let j = 0; j < J; j++) {
      const o = to[j]!;
      if (f.known && o.known && f.type === o.type && pairs.has(`${f.tag},${o.tag}`)) {
        out[k * J + j] = 1;
      }
    }
  }
  return out;
}

/** Every set of non-overlapping spans of `types` over n tokens. */
function* spanLayouts(n: number, types: readonly string[], from = 0): Generator<Span[]> {
  if (from >= n) {
    yield [];
    return;
  }
  for (const rest of spanLayouts(n, types, from + 1)) yield rest;
  for (let end = from + 1; end <= n; end++) {
    for (const type of types) {
      for (const rest of spanLayouts(n, types, end))
        yield [{ type, start: from, end, level: 0 }, ...rest];
    }
  }
}
