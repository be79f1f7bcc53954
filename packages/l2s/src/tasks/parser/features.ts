import { hashCombine, hashString } from "../../features/hashing.js";
import type { FeatureSink } from "../../search/types.js";
import { type ArcHybridState, NONE, ROOT } from "./arc-hybrid.js";

/**
 * Hashed feature templates of an arc-hybrid configuration for greedy parsing: Zhang & Nivre's
 * (2011) rich non-local templates, with the positions read where arc-hybrid makes decisions. In
 * arc-eager s0 may already have a head; in arc-hybrid it never has one, and its two candidate
 * heads are s1 (REDUCE_RIGHT) and b0 (REDUCE_LEFT), so Zhang & Nivre's s0h/s0h2 become s1/s2, and
 * b0 — which can only have left children yet — contributes its leftmost children.
 *
 * Every feature is `hashCombine` of a template id and per-token atoms (form, lower-cased form,
 * POS, arc relation, hashed once per sentence by {@link SentenceAtoms}): a decision costs ~90
 * hash combinations and no string work.
 */

/** A sentence's per-token hashes; index 0 is ROOT. */
export class SentenceAtoms {
  readonly form: Uint32Array;
  readonly lower: Uint32Array;
  readonly pos: Uint32Array;

  constructor(words: readonly string[], tags: readonly string[]) {
    const n = words.length;
    if (tags.length !== n) {
      throw new RangeError(`${n} words but ${tags.length} POS tags: expected one tag per word`);
    }
    this.form = new Uint32Array(n + 1);
    this.lower = new Uint32Array(n + 1);
    this.pos = new Uint32Array(n + 1);
    this.form[ROOT] = ROOT_FORM;
    this.lower[ROOT] = ROOT_FORM;
    this.pos[ROOT] = ROOT_POS;
    for (let i = 0; i < n; i++) {
      const word = words[i]!;
      this.form[i + 1] = hashString(word, FORM_SEED);
      this.lower[i + 1] = hashString(word.toLowerCase(), LOWER_SEED);
      this.pos[i + 1] = hashString(tags[i]!, POS_SEED);
    }
  }
}

const FORM_SEED = 0x0f0e;
const LOWER_SEED = 0x10e7;
const POS_SEED = 0x9057;
const RELATION_SEED = 0x7e1a;
const ROOT_FORM = hashString("<ROOT>", FORM_SEED);
const ROOT_POS = hashString("<ROOT>", POS_SEED);
/** The atom of a position that holds no token (empty stack slot, no such child). */
const ABSENT = hashString("<NONE>");
const UNLABELLED = hashString("<NO-RELATION>", RELATION_SEED);

const templateNames = new Set<string>();
/** A template's id: the hash of its name, checked unique so two templates never share features. */
function template(name: string): number {
  if (templateNames.has(name)) throw new Error(`duplicate feature template ${name}`);
  templateNames.add(name);
  return hashString(`arc-hybrid/${name}`);
}

// The templates, named after Zhang & Nivre (2011) with n0… read as b0…
function unigramTemplates(t: string): Unigram {
  return { w: template(`${t}w`), p: template(`${t}p`), wp: template(`${t}wp`) };
}
const S0 = unigramTemplates("s0");
const S1 = unigramTemplates("s1");
const S2 = unigramTemplates("s2");
const B0 = unigramTemplates("b0");
const B1 = unigramTemplates("b1");
const B2 = unigramTemplates("b2");
const S0_LOWER = template("s0lower");
const B0_LOWER = template("b0lower");
const S1_LOWER = template("s1lower");
const B1_LOWER = template("b1lower");

const S0WP_B0WP = template("s0wp+b0wp");
const S0WP_B0W = template("s0wp+b0w");
const S0W_B0WP = template("s0w+b0wp");
const S0WP_B0P = template("s0wp+b0p");
const S0P_B0WP = template("s0p+b0wp");
const S0W_B0W = template("s0w+b0w");
const S0P_B0P = template("s0p+b0p");
const B0P_B1P = template("b0p+b1p");
const S1W_S0W = template("s1w+s0w");
const S1P_S0P = template("s1p+s0p");
const S1WP_S0WP = template("s1wp+s0wp");
const S1P_B0P = template("s1p+b0p");
const S1W_B0W = template("s1w+b0w");

const B0P_B1P_B2P = template("b0p+b1p+b2p");
const S0P_B0P_B1P = template("s0p+b0p+b1p");
const S1P_S0P_B0P = template("s1p+s0p+b0p");
const S2P_S1P_S0P = template("s2p+s1p+s0p");
const S0P_S0LP_B0P = template("s0p+s0lp+b0p");
const S0P_S0RP_B0P = template("s0p+s0rp+b0p");
const S0P_B0P_B0LP = template("s0p+b0p+b0lp");
const S1P_S1RP_S0P = template("s1p+s1rp+s0p");
const S1P_S0P_S0LP = template("s1p+s0p+s0lp");
const S0W_S0P_B0P = template("s0w+s0p+b0p");
const S0P_B0W_B0P = template("s0p+b0w+b0p");

const S0W_D = template("s0w+d");
const S0P_D = template("s0p+d");
const B0W_D = template("b0w+d");
const B0P_D = template("b0p+d");
const S0W_B0W_D = template("s0w+b0w+d");
const S0P_B0P_D = template("s0p+b0p+d");
const S1P_S0P_D = template("s1p+s0p+d10");

const S0W_VL = template("s0w+vl");
const S0P_VL = template("s0p+vl");
const S0W_VR = template("s0w+vr");
const S0P_VR = template("s0p+vr");
const B0W_VL = template("b0w+vl");
const B0P_VL = template("b0p+vl");
const S1W_VR = template("s1w+vr");
const S1P_VR = template("s1p+vr");

/** Children: w, p and relation of each, then the second-order chains. */
function childTemplates(t: string): Child {
  return { w: template(`${t}w`), p: template(`${t}p`), l: template(`${t}l`) };
}
const S0L = childTemplates("s0l");
const S0R = childTemplates("s0r");
const S1L = childTemplates("s1l");
const S1R = childTemplates("s1r");
const B0L = childTemplates("b0l");
const S0L2 = childTemplates("s0l2");
const S0R2 = childTemplates("s0r2");
const B0L2 = childTemplates("b0l2");
const S0P_S0LP_S0L2P = template("s0p+s0lp+s0l2p");
const S0P_S0RP_S0R2P = template("s0p+s0rp+s0r2p");
const B0P_B0LP_B0L2P = template("b0p+b0lp+b0l2p");
const S0P_S0LL_S0RL = template("s0p+s0ll+s0rl");
const B0P_B0LL = template("b0p+b0ll");

// The relation decision's own templates (head and dependent are known there).
const REL_HW_DW = template("rel:hw+dw");
const REL_HP_DP = template("rel:hp+dp");
const REL_HW_DP = template("rel:hw+dp");
const REL_HP_DW = template("rel:hp+dw");
const REL_DW = template("rel:dw");
const REL_DP = template("rel:dp");
const REL_HP_DP_D = template("rel:hp+dp+d");
const REL_DP_DLL = template("rel:dp+dll");
const REL_DP_DRL = template("rel:dp+drl");
const DIRECTION = [template("direction:left"), template("direction:right")] as const;

/** Distance bucket atoms: 1, 2, 3, 4, 5–6, 7–9, 10+. */
function distance(d: number): number {
  const bucket = d <= 4 ? d : d <= 6 ? 5 : d <= 9 ? 6 : 7;
  return DISTANCE_ATOMS[bucket]!;
}
const DISTANCE_ATOMS = Array.from({ length: 8 }, (_, i) => hashString(`distance ${i}`));
const VALENCY_ATOMS = Array.from({ length: 9 }, (_, i) => hashString(`valency ${i}`));
function valency(count: number): number {
  return VALENCY_ATOMS[Math.min(count, 8)]!;
}

function add1(sink: FeatureSink, t: number, a: number): void {
  sink.addHash(hashCombine(t, a));
}
function add2(sink: FeatureSink, t: number, a: number, b: number): void {
  sink.addHash(hashCombine(hashCombine(t, a), b));
}
function add3(sink: FeatureSink, t: number, a: number, b: number, c: number): void {
  sink.addHash(hashCombine(hashCombine(hashCombine(t, a), b), c));
}

// Atom readers; an absent position (NONE) reads ABSENT.
function w(a: SentenceAtoms, i: number): number {
  return i === NONE ? ABSENT : a.form[i]!;
}
function lower(a: SentenceAtoms, i: number): number {
  return i === NONE ? ABSENT : a.lower[i]!;
}
function p(a: SentenceAtoms, i: number): number {
  return i === NONE ? ABSENT : a.pos[i]!;
}
function wp(a: SentenceAtoms, i: number): number {
  return i === NONE ? ABSENT : hashCombine(a.form[i]!, a.pos[i]!);
}
/** The relation of i's arc (children are labelled before anything reads them). */
function l(state: ArcHybridState, i: number): number {
  if (i === NONE) return ABSENT;
  const r = state.relations[i]!;
  return r === NONE ? UNLABELLED : hashCombine(RELATION_SEED, r);
}
function child(children: Int32Array, t: number): number {
  return t === NONE ? NONE : children[t]!;
}
function leftValency(state: ArcHybridState, t: number): number {
  return t === NONE ? ABSENT : valency(state.leftCount[t]!);
}
function rightValency(state: ArcHybridState, t: number): number {
  return t === NONE ? ABSENT : valency(state.rightCount[t]!);
}

type Unigram = { readonly w: number; readonly p: number; readonly wp: number };
function unigram(sink: FeatureSink, a: SentenceAtoms, u: Unigram, t: number): void {
  add1(sink, u.w, w(a, t));
  add1(sink, u.p, p(a, t));
  add1(sink, u.wp, wp(a, t));
}
type Child = { readonly w: number; readonly p: number; readonly l: number };
function childFeatures(
  sink: FeatureSink,
  state: ArcHybridState,
  a: SentenceAtoms,
  u: Child,
  c: number,
): void {
  add1(sink, u.w, w(a, c));
  add1(sink, u.p, p(a, c));
  add1(sink, u.l, l(state, c));
}

/**
 * Writes the configuration's features: what decides the next transition. Reads the live state,
 * so call it while the configuration is the one being decided (as `predict` does).
 */
export function writeConfigurationFeatures(
  state: ArcHybridState,
  a: SentenceAtoms,
  sink: FeatureSink,
): void {
  const s0 = state.s(0);
  const s1 = state.s(1);
  const s2 = state.s(2);
  const b0 = state.b(0);
  const b1 = state.b(1);
  const b2 = state.b(2);
  unigram(sink, a, S0, s0);
  unigram(sink, a, S1, s1);
  unigram(sink, a, S2, s2);
  unigram(sink, a, B0, b0);
  unigram(sink, a, B1, b1);
  unigram(sink, a, B2, b2);
  add1(sink, S0_LOWER, lower(a, s0));
  add1(sink, B0_LOWER, lower(a, b0));
  add1(sink, S1_LOWER, lower(a, s1));
  add1(sink, B1_LOWER, lower(a, b1));

  const s0w = w(a, s0);
  const s0p = p(a, s0);
  const s0wp = wp(a, s0);
  const b0w = w(a, b0);
  const b0p = p(a, b0);
  const b0wp = wp(a, b0);
  const s1w = w(a, s1);
  const s1p = p(a, s1);
  const b1p = p(a, b1);
  add2(sink, S0WP_B0WP, s0wp, b0wp);
  add2(sink, S0WP_B0W, s0wp, b0w);
  add2(sink, S0W_B0WP, s0w, b0wp);
  add2(sink, S0WP_B0P, s0wp, b0p);
  add2(sink, S0P_B0WP, s0p, b0wp);
  add2(sink, S0W_B0W, s0w, b0w);
  add2(sink, S0P_B0P, s0p, b0p);
  add2(sink, B0P_B1P, b0p, b1p);
  add2(sink, S1W_S0W, s1w, s0w);
  add2(sink, S1P_S0P, s1p, s0p);
  add2(sink, S1WP_S0WP, wp(a, s1), s0wp);
  add2(sink, S1P_B0P, s1p, b0p);
  add2(sink, S1W_B0W, s1w, b0w);

  // Stack words have left and right children, b0 only left ones so far.
  const s0l = child(state.leftmost, s0);
  const s0r = child(state.rightmost, s0);
  const s1l = child(state.leftmost, s1);
  const s1r = child(state.rightmost, s1);
  const b0l = child(state.leftmost, b0);
  const s0l2 = child(state.leftmost2, s0);
  const s0r2 = child(state.rightmost2, s0);
  const b0l2 = child(state.leftmost2, b0);
  childFeatures(sink, state, a, S0L, s0l);
  childFeatures(sink, state, a, S0R, s0r);
  childFeatures(sink, state, a, S1L, s1l);
  childFeatures(sink, state, a, S1R, s1r);
  childFeatures(sink, state, a, B0L, b0l);
  childFeatures(sink, state, a, S0L2, s0l2);
  childFeatures(sink, state, a, S0R2, s0r2);
  childFeatures(sink, state, a, B0L2, b0l2);

  add3(sink, B0P_B1P_B2P, b0p, b1p, p(a, b2));
  add3(sink, S0P_B0P_B1P, s0p, b0p, b1p);
  add3(sink, S1P_S0P_B0P, s1p, s0p, b0p);
  add3(sink, S2P_S1P_S0P, p(a, s2), s1p, s0p);
  add3(sink, S0P_S0LP_B0P, s0p, p(a, s0l), b0p);
  add3(sink, S0P_S0RP_B0P, s0p, p(a, s0r), b0p);
  add3(sink, S0P_B0P_B0LP, s0p, b0p, p(a, b0l));
  add3(sink, S1P_S1RP_S0P, s1p, p(a, s1r), s0p);
  add3(sink, S1P_S0P_S0LP, s1p, s0p, p(a, s0l));
  add3(sink, S0W_S0P_B0P, s0w, s0p, b0p);
  add3(sink, S0P_B0W_B0P, s0p, b0w, b0p);
  add3(sink, S0P_S0LP_S0L2P, s0p, p(a, s0l), p(a, s0l2));
  add3(sink, S0P_S0RP_S0R2P, s0p, p(a, s0r), p(a, s0r2));
  add3(sink, B0P_B0LP_B0L2P, b0p, p(a, b0l), p(a, b0l2));
  add3(sink, S0P_S0LL_S0RL, s0p, l(state, s0l), l(state, s0r));
  add2(sink, B0P_B0LL, b0p, l(state, b0l));

  const d = s0 !== NONE && b0 !== NONE ? distance(b0 - s0) : ABSENT;
  add2(sink, S0W_D, s0w, d);
  add2(sink, S0P_D, s0p, d);
  add2(sink, B0W_D, b0w, d);
  add2(sink, B0P_D, b0p, d);
  add3(sink, S0W_B0W_D, s0w, b0w, d);
  add3(sink, S0P_B0P_D, s0p, b0p, d);
  add3(sink, S1P_S0P_D, s1p, s0p, s1 !== NONE ? distance(s0 - s1) : ABSENT);

  add2(sink, S0W_VL, s0w, leftValency(state, s0));
  add2(sink, S0P_VL, s0p, leftValency(state, s0));
  add2(sink, S0W_VR, s0w, rightValency(state, s0));
  add2(sink, S0P_VR, s0p, rightValency(state, s0));
  add2(sink, B0W_VL, b0w, leftValency(state, b0));
  add2(sink, B0P_VL, b0p, leftValency(state, b0));
  add2(sink, S1W_VR, s1w, rightValency(state, s1));
  add2(sink, S1P_VR, s1p, rightValency(state, s1));
}

/**
 * A sink that conjoins every feature written into it with an arc direction: the relation
 * decision reuses the configuration's templates, and what predicts `nsubj` on a left arc is not
 * what predicts it on a right one.
 */
export class DirectedSink implements FeatureSink {
  inner: FeatureSink | undefined;
  direction = DIRECTION[0];

  add(name: string, value = 1): void {
    this.addHash(hashString(name), value);
  }

  addHash(hash: number, value = 1): void {
    this.inner!.addHash(hashCombine(hash, this.direction), value);
  }
}

/**
 * Writes the features of labelling the arc head → dependent that the configuration's next
 * REDUCE adds (`left`: REDUCE_LEFT, head b0; else REDUCE_RIGHT, head s1): the configuration's
 * features conjoined with the direction, and head/dependent pairs.
 */
export function writeRelationFeatures(
  state: ArcHybridState,
  a: SentenceAtoms,
  left: boolean,
  directed: DirectedSink,
  sink: FeatureSink,
): void {
  directed.inner = sink;
  directed.direction = DIRECTION[left ? 0 : 1];
  // The arc's neighbourhood rather than every configuration template: scoring ~50 relations over
  // ~90 configuration features per arc cost more than all the transition decisions together.
  unigram(directed, a, S0, state.s(0));
  unigram(directed, a, S1, state.s(1));
  unigram(directed, a, S2, state.s(2));
  unigram(directed, a, B0, state.b(0));
  unigram(directed, a, B1, state.b(1));
  childFeatures(directed, state, a, S0L, child(state.leftmost, state.s(0)));
  childFeatures(directed, state, a, S0R, child(state.rightmost, state.s(0)));
  childFeatures(directed, state, a, S0L2, child(state.leftmost2, state.s(0)));
  childFeatures(directed, state, a, S0R2, child(state.rightmost2, state.s(0)));
  const s0p = p(a, state.s(0));
  const s1p = p(a, state.s(1));
  const b0p = p(a, state.b(0));
  add2(directed, S0P_B0P, s0p, b0p);
  add2(directed, S1P_S0P, s1p, s0p);
  add2(directed, S0WP_B0P, wp(a, state.s(0)), b0p);
  add3(directed, S1P_S0P_B0P, s1p, s0p, b0p);
  add3(directed, S0P_B0P_B1P, s0p, b0p, p(a, state.b(1)));
  const dependent = state.s(0);
  const head = left ? state.b(0) : state.s(1);
  const dir = directed.direction;
  const hw = w(a, head);
  const hp = p(a, head);
  const dw = w(a, dependent);
  const dp = p(a, dependent);
  add3(sink, REL_HW_DW, dir, hw, dw);
  add3(sink, REL_HP_DP, dir, hp, dp);
  add3(sink, REL_HW_DP, dir, hw, dp);
  add3(sink, REL_HP_DW, dir, hp, dw);
  add2(sink, REL_DW, dir, dw);
  add2(sink, REL_DP, dir, dp);
  add3(sink, REL_HP_DP_D, hp, dp, distance(Math.abs(head - dependent)));
  add3(sink, REL_DP_DLL, dir, dp, l(state, state.leftmost[dependent]!));
  add3(sink, REL_DP_DRL, dir, dp, l(state, state.rightmost[dependent]!));
}
