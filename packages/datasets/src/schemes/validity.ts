import type { TransitionMask } from "@lagrange/core";
import {
  continuesAt,
  type LevelLabel,
  type ParsedLabel,
  parseLabel,
  parseLabels,
  type SchemeInfo,
  type SchemeName,
  type SchemeOptions,
  schemeInfo,
  TAG_B,
  TAG_E,
  TAG_I,
  TAG_O,
  TAG_S,
  type Tag,
  tagAt,
} from "./labels.js";
import type { PartialLabel } from "./partial-labels.js";

/*
 * Validity is first order: a sequence is valid iff its first label may start, every adjacent
 * pair may follow each other and its last label may end. That is what a chain model can enforce
 * (`allowedTransitions`), and it coincides with "the sequence is the canonical encoding of its
 * own spans" (checked by property tests). Per level of one chunk region:
 *   IOB2   I-X only after B-X or I-X;               start: O, B
 *   IOB1   B-X only after B-X or I-X;               start: O, I
 *   IOE2   after I-X only I-X or E-X;               end:   O, E
 *   IOE1   after E-X only I-X or E-X;               end:   O, I
 *   BIOES  after B-X/I-X only I-X/E-X, else O/B/S;  start: O, B, S; end: O, E, S
 * In a hierarchy the levels below a chunk boundary start a new region: the previous label must
 * be able to end there and the next one to start.
 */

function startAllowedTag(info: SchemeInfo, tag: Tag): boolean {
  switch (info.name) {
    case "IOB1":
      return tag === TAG_O || tag === TAG_I;
    case "IOB2":
      return tag === TAG_O || tag === TAG_B;
    case "IOE1":
    case "IOE2":
      return true;
    default:
      return tag === TAG_O || tag === TAG_B || tag === TAG_S;
  }
}

function endAllowedTag(info: SchemeInfo, tag: Tag): boolean {
  switch (info.name) {
    case "IOB1":
    case "IOB2":
      return true;
    case "IOE1":
      return tag === TAG_O || tag === TAG_I;
    case "IOE2":
      return tag === TAG_O || tag === TAG_E;
    default:
      return tag === TAG_O || tag === TAG_E || tag === TAG_S;
  }
}

function sameType(p: LevelLabel | undefined, x: LevelLabel | undefined): boolean {
  return p !== undefined && x !== undefined && p.type === x.type;
}

function pairAllowedLevel(
  info: SchemeInfo,
  p: LevelLabel | undefined,
  x: LevelLabel | undefined,
): boolean {
  const pt = p?.tag ?? TAG_O;
  const xt = x?.tag ?? TAG_O;
  switch (info.name) {
    case "IOB2":
      return xt !== TAG_I || ((pt === TAG_B || pt === TAG_I) && sameType(p, x));
    case "IOB1":
      return xt !== TAG_B || ((pt === TAG_B || pt === TAG_I) && sameType(p, x));
    case "IOE2":
      return pt !== TAG_I || ((xt === TAG_I || xt === TAG_E) && sameType(p, x));
    case "IOE1":
      return pt !== TAG_E || ((xt === TAG_I || xt === TAG_E) && sameType(p, x));
    default:
      if (pt === TAG_B || pt === TAG_I) return (xt === TAG_I || xt === TAG_E) && sameType(p, x);
      return xt === TAG_O || xt === TAG_B || xt === TAG_S;
  }
}

export function labelMayStart(info: SchemeInfo, label: ParsedLabel): boolean {
  for (let k = 0; k < label.length; k++) if (!startAllowedTag(info, tagAt(label, k))) return false;
  return true;
}

export function labelMayEnd(info: SchemeInfo, label: ParsedLabel): boolean {
  for (let k = 0; k < label.length; k++) if (!endAllowedTag(info, tagAt(label, k))) return false;
  return true;
}

export function pairAllowed(info: SchemeInfo, previous: ParsedLabel, next: ParsedLabel): boolean {
  const depth = Math.max(previous.length, next.length);
  let sameRegion = true;
  for (let k = 0; k < depth; k++) {
    if (sameRegion) {
      if (!pairAllowedLevel(info, previous[k], next[k])) return false;
    } else if (!endAllowedTag(info, tagAt(previous, k)) || !startAllowedTag(info, tagAt(next, k))) {
      return false;
    }
    sameRegion = sameRegion && continuesAt(info.family, previous, next, k);
  }
  return true;
}

/** Where and why a label sequence breaks its scheme. */
export interface SchemeViolation {
  readonly position: number;
  readonly label: string;
  /** `start`: may not begin a sequence; `end`: may not end one; `transition`: may not follow `previous`. */
  readonly kind: "start" | "transition" | "end";
  readonly previous?: string;
  readonly message: string;
}

/**
 * The positions at which `labels` violate `scheme` (empty when valid). A label that the scheme
 * cannot read at all throws a LabelSchemeError instead. In a partially labelled sequence (a
 * {@link PartialLabel}: `null` unknown, an array a label set) only what the known labels fix is
 * checked: a start, a transition or an end that involves an unknown label or a set is skipped
 * (some labelling the annotation allows may satisfy it), though every label a set names must be
 * readable.
 */
export function findViolations(
  labels: readonly PartialLabel[],
  scheme: SchemeName,
  options: SchemeOptions = {},
): SchemeViolation[] {
  const info = schemeInfo(scheme);
  const parsed = parseKnown(labels, info, options);
  const out: SchemeViolation[] = [];
  const n = parsed.length;
  for (let i = 0; i < n; i++) {
    const label = labels[i];
    const here = parsed[i];
    if (typeof label !== "string" || here === undefined) continue;
    if (i === 0 && !labelMayStart(info, here)) {
      out.push({
        position: 0,
        label,
        kind: "start",
        message: `${scheme}: a sequence cannot start with ${JSON.stringify(label)} (position 0)`,
      });
    }
    const before = i > 0 ? parsed[i - 1] : undefined;
    const previous = i > 0 ? labels[i - 1] : undefined;
    if (before !== undefined && typeof previous === "string" && !pairAllowed(info, before, here)) {
      out.push({
        position: i,
        label,
        kind: "transition",
        previous,
        message: `${scheme}: ${JSON.stringify(label)} cannot follow ${JSON.stringify(previous)} (position ${i})`,
      });
    }
    if (i === n - 1 && !labelMayEnd(info, here)) {
      out.push({
        position: i,
        label,
        kind: "end",
        message: `${scheme}: a sequence cannot end with ${JSON.stringify(label)} (position ${i})`,
      });
    }
  }
  return out;
}

/** The known labels parsed (undefined where unknown or a set, whose members are only read). */
function parseKnown(
  labels: readonly PartialLabel[],
  info: SchemeInfo,
  options: SchemeOptions,
): (ParsedLabel | undefined)[] {
  if (labels.every((label) => typeof label === "string")) {
    return parseLabels(labels as readonly string[], info, options);
  }
  return labels.map((label, i) => {
    if (typeof label === "string") return parseLabel(label, info, options, i);
    for (const member of label ?? []) parseLabel(member, info, options, i);
    return undefined;
  });
}

export function isValidSequence(
  labels: readonly string[],
  scheme: SchemeName,
  options: SchemeOptions = {},
): boolean {
  return findViolations(labels, scheme, options).length === 0;
}

/**
 * Builds the transition mask (core's `TransitionMask`, every mask present) of `scheme` over
 * `labelNames` (in that order; the ids of a LabelSet's `names()`). A chain model gives what it
 * forbids −∞. Every label must be readable in the scheme: an unknown tag throws a
 * LabelSchemeError naming its index.
 */
export function allowedTransitions(
  labelNames: readonly string[],
  scheme: SchemeName,
  options: SchemeOptions = {},
): Required<TransitionMask> {
  const info = schemeInfo(scheme);
  const L = labelNames.length;
  const parsed = labelNames.map((name, index) => parseLabel(name, info, options, index));
  const allowed = new Uint8Array(L * L);
  const allowedStart = new Uint8Array(L);
  const allowedEnd = new Uint8Array(L);
  for (let a = 0; a < L; a++) {
    allowedStart[a] = labelMayStart(info, parsed[a]!) ? 1 : 0;
    allowedEnd[a] = labelMayEnd(info, parsed[a]!) ? 1 : 0;
    for (let b = 0; b < L; b++)
      allowed[a * L + b] = pairAllowed(info, parsed[a]!, parsed[b]!) ? 1 : 0;
  }
  return { allowed, allowedStart, allowedEnd };
}
