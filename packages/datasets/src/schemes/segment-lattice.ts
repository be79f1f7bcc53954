import { type ChainScores, LagrangeError, ProblemValidationError } from "@lagrange/core";
import { chunkScheme, type LabelScheme, parseLabelScheme } from "./label-scheme.js";
import {
  LabelSchemeError,
  type ParsedLabel,
  parseLabel,
  type SchemeName,
  schemeInfo,
  TAG_B,
  TAG_E,
  TAG_I,
  TAG_S,
  type Tag,
} from "./labels.js";

/*
 * A linear constraint over unary indicators can count segments only if every segment carries
 * exactly one marker label. IOB2 (B-), BIOES/BILOU (B-, S-/U-), IOE2 (E-) and hierarchical BIO do.
 * IOB1 and IOE1 do not: an IOB1 segment starts at `B-X` or at an `I-X` after anything but X, an
 * IOE1 segment ends at `E-X` or at an `I-X` before anything but X. Splitting each `I-X` into two
 * states, told apart by its neighbour, gives every segment one marker state; the state sequences
 * the lattice allows are in bijection with the valid label sequences.
 */

/** One hierarchy level of a state: the level's own type and whether the state marks its segment. */
export interface SegmentLevel {
  readonly type: string;
  readonly marks: boolean;
}

/**
 * The states over which segment constraints are compiled: the model's labels (same ids) and, for
 * IOB1 and IOE1, one more state per `I-` label, so that every segment has exactly one marker.
 */
export interface SegmentLattice {
  readonly scheme: LabelScheme;
  /** The model's labels. */
  readonly labels: readonly string[];
  /** Labels first (same ids), then split states, e.g. "I-LOC (starting)". */
  readonly states: readonly string[];
  /** Whether there are split states (states.length > labels.length). */
  readonly expanded: boolean;
  /** State id → label id. */
  readonly origin: Int32Array;
  /** Per state, per hierarchy level (outermost first): the level's type and whether this state carries the segment's one marker. */
  levels(state: number): readonly SegmentLevel[];
  /** A label-id sequence → its state sequence (deterministic; a split state is chosen by its neighbour). */
  lift(labels: ArrayLike<number>): Int32Array;
  /** State ids → label ids. */
  lower(states: ArrayLike<number>): Int32Array;
  /**
   * Chain scores over the labels → chain scores over the states: a state's unary and transition
   * scores are its label's, and the lattice's split rules join the `allowed` mask and the start and
   * end scores. The identity lattice returns `scores` itself.
   */
  liftScores(scores: ChainScores): ChainScores;
}

/**
 * What a state says about its neighbour: `continuing` (IOB1 `I-X` after an X), `starting` (IOB1
 * `I-X` first or after anything but X), `inside` (IOE1 `I-X` before an X), `ending` (IOE1 `I-X`
 * last or before anything but X); `plain` for every other state.
 */
type Role = "plain" | "continuing" | "starting" | "inside" | "ending";

/**
 * The segment lattice of a model's labels under `scheme`. `none` has no segments: a usage error.
 * A label the scheme cannot read is a usage error naming it.
 */
export function segmentLattice(labels: readonly string[], scheme: LabelScheme): SegmentLattice {
  // From plain JavaScript a scheme may be anything: a usage error naming the choices, not a crash.
  parseLabelScheme(String(scheme), "segment lattice");
  if (scheme === "none") {
    throw new LagrangeError(
      "usage",
      `the label scheme is "none" (plain tags): there are no segments to count or constrain; train or convert the data under a chunk scheme (IOB2, BIOES, …)`,
    );
  }
  const [name, options] = chunkScheme(scheme);
  const info = schemeInfo(name);
  const parsed = labels.map((label, id): ParsedLabel => {
    try {
      return parseLabel(label, info, options, id);
    } catch (error) {
      if (!(error instanceof LabelSchemeError)) throw error;
      throw new LagrangeError(
        "usage",
        `label ${JSON.stringify(label)} cannot be read under the ${scheme} scheme: ${error.detail}`,
        { cause: error },
      );
    }
  });
  const splitRole: Role = name === "IOB1" ? "starting" : name === "IOE1" ? "ending" : "plain";
  const states = [...labels];
  const origin: number[] = labels.map((_, id) => id);
  const roles: Role[] = labels.map(() => "plain");
  /** Label id → its split state, or −1. */
  const splitOf = new Int32Array(labels.length).fill(-1);
  if (splitRole !== "plain") {
    labels.forEach((label, id) => {
      if (parsed[id]![0]?.tag !== TAG_I) return;
      roles[id] = splitRole === "starting" ? "continuing" : "inside";
      splitOf[id] = states.length;
      states.push(`${label} (${splitRole})`);
      origin.push(id);
      roles.push(splitRole);
    });
  }
  const S = states.length;
  const types = origin.map((id) => parsed[id]![0]?.type);
  const levels = origin.map((id, s) =>
    parsed[id]!.map(
      (level): SegmentLevel => ({ type: level.type, marks: marks(name, level.tag, roles[s]!) }),
    ),
  );

  const allows = (a: number, b: number): boolean => {
    switch (roles[b]) {
      case "continuing":
        return types[a] === types[b];
      case "starting":
        return types[a] !== types[b];
    }
    switch (roles[a]) {
      case "inside":
        return types[a] === types[b];
      case "ending":
        return types[a] !== types[b];
    }
    return true;
  };
  const mayStart = (s: number) => roles[s] !== "continuing";
  const mayEnd = (s: number) => roles[s] !== "inside";

  const checkIds = (ids: ArrayLike<number>, size: number, what: string) => {
    for (let i = 0; i < ids.length; i++) {
      const y = ids[i]!;
      if (!Number.isInteger(y) || y < 0 || y >= size) {
        throw new ProblemValidationError(
          `${what}[${i}]`,
          `expected an id in 0..${size - 1}, got ${y}`,
        );
      }
    }
  };

  return {
    scheme,
    labels,
    states,
    expanded: S > labels.length,
    origin: Int32Array.from(origin),
    levels(state) {
      const found = levels[state];
      if (found === undefined) {
        throw new ProblemValidationError("state", `expected an id in 0..${S - 1}, got ${state}`);
      }
      return found;
    },
    lift(ids) {
      checkIds(ids, labels.length, "labels");
      const n = ids.length;
      const out = Int32Array.from(ids);
      if (splitRole === "plain") return out;
      for (let i = 0; i < n; i++) {
        const split = splitOf[ids[i]!]!;
        if (split < 0) continue;
        const neighbour = splitRole === "starting" ? i - 1 : i + 1;
        const shared = neighbour >= 0 && neighbour < n && types[ids[neighbour]!] === types[ids[i]!];
        if (!shared) out[i] = split;
      }
      return out;
    },
    lower(ids) {
      checkIds(ids, S, "states");
      const out = new Int32Array(ids.length);
      for (let i = 0; i < ids.length; i++) out[i] = origin[ids[i]!]!;
      return out;
    },
    liftScores(scores) {
      if (S === labels.length) return scores;
      const { n, L } = scores;
      if (L !== labels.length) {
        throw new ProblemValidationError(
          "scores.L",
          `expected the ${labels.length} labels of the lattice, got L = ${L}`,
        );
      }
      const LL = L * L;
      const SS = S * S;
      const blocks = scores.transition.length / LL;
      const unary = new Float64Array(n * S);
      const transition = new Float64Array(blocks * SS);
      const allowed = new Uint8Array(SS);
      const start = new Float64Array(S);
      const end = new Float64Array(S);
      for (let i = 0; i < n; i++) {
        for (let s = 0; s < S; s++) unary[i * S + s] = scores.unary[i * L + origin[s]!]!;
      }
      for (let a = 0; a < S; a++) {
        const la = origin[a]!;
        start[a] = (scores.start?.[la] ?? 0) + (mayStart(a) ? 0 : Number.NEGATIVE_INFINITY);
        end[a] = (scores.end?.[la] ?? 0) + (mayEnd(a) ? 0 : Number.NEGATIVE_INFINITY);
        for (let b = 0; b < S; b++) {
          const lb = origin[b]!;
          allowed[a * S + b] = (scores.allowed?.[la * L + lb] ?? 1) !== 0 && allows(a, b) ? 1 : 0;
          for (let k = 0; k < blocks; k++) {
            transition[k * SS + a * S + b] = scores.transition[k * LL + la * L + lb]!;
          }
        }
      }
      return { n, L: S, unary, transition, start, end, allowed };
    },
  };
}

function marks(scheme: SchemeName, tag: Tag, role: Role): boolean {
  switch (scheme) {
    case "IOB1":
      return tag === TAG_B || role === "starting";
    case "IOB2":
      return tag === TAG_B;
    case "IOE1":
      return tag === TAG_E || role === "ending";
    case "IOE2":
      return tag === TAG_E;
    default:
      return tag === TAG_B || tag === TAG_S;
  }
}
