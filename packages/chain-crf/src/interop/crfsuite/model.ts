/**
 * CRFsuite's crf1d model files ("lCRF", crf1d_model.c), read into and written from a Lagrange
 * {@link CrfModel}. Layout (all integers little-endian u32, weights IEEE-754 doubles):
 *   0    header, 48 bytes: "lCRF", file size, "FOMC", version 100, number of features (CRFsuite
 *        leaves it 0), number of labels L, number of attributes A, and the offsets of the feature
 *        chunk, the label CQDB, the attribute CQDB, the label references and the attribute references
 *   FEAT chunk: "FEAT", chunk size, K, then K features of 20 bytes (type, src, dst, weight):
 *        type 0 = state feature (attribute src, label dst), 1 = transition (label src → label dst)
 *   LFRF / AFRF chunks (4-byte aligned): tag, chunk size, count, one absolute offset per label /
 *        attribute, each to a list (count, feature ids) of the features the label / attribute owns
 * CRFsuite's tagger scores through the reference lists, so they (not the flat table) are what is
 * read here. CRFsuite has no first/last-label weights and no observation-conditioned bigrams.
 */
import { LabelSet, LagrangeError } from "@lagrange/core";
import { formatByteSize } from "@lagrange/core/bytes";
import { MAX_WEIGHT_MAGNITUDE } from "@lagrange/core/chain";
import { CrfModel, type JsonValue } from "../../crf-model.js";
import type { FeatureLayout } from "../../model/layout.js";
import { hasLagrangeMagic } from "../../model-file.js";
import { ByteReader, ByteWriter } from "./bytes.js";
import { readCqdb, writeCqdb } from "./cqdb.js";

const HEADER_SIZE = 48;
const CHUNK_SIZE = 12;
const FEATURE_SIZE = 20;
const VERSION = 100;
const FT_STATE = 0;
const FT_TRANS = 1;

/**
 * The most labels an imported model may have: 4,096 labels already make a 134 MB transition table
 * and a tagger that spends 16 million steps a token. CRFsuite files store only non-zero
 * transitions, so without a bound a crafted file of a few kilobytes could declare 2^32 labels.
 */
export const MAX_IMPORTED_LABELS = 4096;

/**
 * A Lagrange model from the bytes of a CRFsuite model file (`crfsuite learn -m`, python-crfsuite,
 * the npm binding). Decoding it scores every labelling exactly as CRFsuite's tagger does. It has no
 * feature preset: its input is CRFsuite attribute lists. A malformed file throws
 * {@link ModelFileError} naming `file` and what is wrong.
 */
export function crfsuiteModelFromBytes(bytes: Uint8Array, file = "CRFsuite model"): CrfModel {
  const r = new ByteReader(bytes, file);
  if (bytes.length < HEADER_SIZE) {
    r.fail(`${bytes.length} bytes: too short for a CRFsuite model (a 48-byte header at least)`);
  }
  if (hasLagrangeMagic(bytes)) {
    r.fail("already a Lagrange model file: lagrange tag, eval and info read it as it is");
  }
  r.tag(0, "lCRF", "file magic (not a CRFsuite model)");
  const size = r.u32(4, "header");
  if (size !== bytes.length) {
    r.fail(
      `the header gives the file size ${size}, the file has ${bytes.length} bytes (truncated or padded)`,
    );
  }
  r.tag(8, "FOMC", "model type (only crf1d models, type FOMC, are supported)");
  const version = r.u32(12, "header");
  if (version !== VERSION) r.fail(`format version ${version}; expected ${VERSION}`);
  const L = r.u32(20, "header");
  const A = r.u32(24, "header");
  const offFeatures = r.u32(28, "header");
  const offLabels = r.u32(32, "header");
  const offAttrs = r.u32(36, "header");
  const offLabelRefs = r.u32(40, "header");
  const offAttrRefs = r.u32(44, "header");
  if (L === 0) r.fail("the model has no labels");
  // Checked before anything is allocated by it: Lagrange holds every label pair's weight, so L
  // labels cost 8·L² bytes however few transitions the file stores.
  if (L > MAX_IMPORTED_LABELS) {
    r.fail(
      `the header declares ${L} labels: their dense transition table would take ${formatByteSize(8 * L * L)}; importing supports at most ${MAX_IMPORTED_LABELS} labels (${formatByteSize(8 * MAX_IMPORTED_LABELS ** 2)})`,
    );
  }

  r.tag(offFeatures, "FEAT", "feature chunk");
  const K = r.u32(offFeatures + 8, "feature chunk");
  r.need(offFeatures + CHUNK_SIZE, K * FEATURE_SIZE, `feature table (${K} features)`);
  const feature = (fid: number, owner: string) => {
    if (fid >= K) r.fail(`${owner} refers to feature ${fid}; the table has ${K}`);
    const p = offFeatures + CHUNK_SIZE + fid * FEATURE_SIZE;
    const weight = r.f64(p + 12, "feature table");
    if (!(Math.abs(weight) <= MAX_WEIGHT_MAGNITUDE)) {
      r.fail(
        `feature ${fid} has the weight ${weight}; expected a finite number of magnitude at most ${MAX_WEIGHT_MAGNITUDE}`,
      );
    }
    return {
      type: r.u32(p, "feature table"),
      src: r.u32(p + 4, "feature table"),
      dst: r.u32(p + 8, "feature table"),
      weight,
    };
  };

  const labels = readCqdb(r, offLabels, L, "label");
  const attributes = readCqdb(r, offAttrs, A, "attribute");
  const labelSet = LabelSet.from(labels);
  if (labelSet.size !== L) r.fail("the label database holds a name twice");
  const attributeSet = LabelSet.from(attributes);
  if (attributeSet.size !== A) r.fail("the attribute database holds a name twice");

  /** The feature ids of owner `i` in the reference chunk at `begin`. */
  const refs = (begin: number, tag: string, count: number, what: string) => {
    r.tag(begin, tag, `${what} reference chunk`);
    const n = r.u32(begin + 8, `${what} reference chunk`);
    if (n < count) r.fail(`${what} reference chunk lists ${n} ${what}s; the header says ${count}`);
    return (i: number): number[] => {
      const offset = r.u32(begin + CHUNK_SIZE + i * 4, `${what} reference chunk`);
      const m = r.u32(offset, `references of ${what} ${i}`);
      r.need(offset + 4, m * 4, `references of ${what} ${i} (${m} features)`);
      const ids: number[] = new Array(m);
      for (let j = 0; j < m; j++) ids[j] = r.u32(offset + 4 + j * 4, `references of ${what} ${i}`);
      return ids;
    };
  };

  const LL = L * L;
  const transitions = new Float64Array(LL);
  const seenTransition = new Uint8Array(LL);
  const labelRefs = refs(offLabelRefs, "LFRF", L, "label");
  for (let l = 0; l < L; l++) {
    for (const fid of labelRefs(l)) {
      const f = feature(fid, `label ${l}'s reference list`);
      if (f.type !== FT_TRANS || f.src !== l || f.dst >= L) {
        r.fail(
          `feature ${fid}, listed under label ${l}, is not a transition from that label to a label`,
        );
      }
      if (seenTransition[l * L + f.dst]!++ > 0)
        r.fail(`transition ${l} → ${f.dst} is listed twice`);
      transitions[l * L + f.dst] = f.weight;
    }
  }

  const attrRefs = refs(offAttrRefs, "AFRF", A, "attribute");
  const attributeOffsets = new Int32Array(A + 1);
  const featureLabels: number[] = [];
  const stateWeights: number[] = [];
  const row = new Float64Array(L);
  const present = new Uint8Array(L);
  const owned: number[] = [];
  for (let a = 0; a < A; a++) {
    attributeOffsets[a] = featureLabels.length;
    owned.length = 0;
    for (const fid of attrRefs(a)) {
      const f = feature(fid, `attribute ${a}'s reference list`);
      if (f.type !== FT_STATE || f.src !== a || f.dst >= L) {
        r.fail(
          `feature ${fid}, listed under attribute ${a}, is not a state feature of that attribute`,
        );
      }
      if (present[f.dst]!++ > 0) r.fail(`attribute ${a} has two features for label ${f.dst}`);
      row[f.dst] = f.weight;
      owned.push(f.dst);
    }
    // Lagrange keeps an attribute's labels ascending; CRFsuite's order carries no meaning. Only
    // the labels listed are visited (not all L per attribute: A·L steps for a crafted file).
    owned.sort((x, y) => x - y);
    for (const t of owned) {
      featureLabels.push(t);
      stateWeights.push(row[t]!);
      present[t] = 0;
    }
  }
  const S = featureLabels.length;
  attributeOffsets[A] = S;
  const layout: FeatureLayout = {
    numLabels: L,
    numAttributes: A,
    attributeOffsets,
    featureLabels: Int32Array.from(featureLabels),
    transitionBase: S,
    startBase: -1,
    endBase: -1,
    numTransitionAttributes: 0,
    transitionAttributeOffsets: new Int32Array(1),
    transitionFeaturePairs: new Int32Array(0),
    transitionAttributeBase: S + LL,
    numWeights: S + LL,
  };
  const weights = new Float64Array(S + LL);
  weights.set(stateWeights, 0);
  weights.set(transitions, S);
  const settings: { [key: string]: JsonValue } = {
    importedFrom: "crfsuite",
    crfsuite: { file, features: K, labels: L, attributes: A },
  };
  return new CrfModel({
    labels: labelSet,
    attributes: attributeSet,
    layout,
    weights,
    preset: null,
    settings,
  });
}

export interface CrfsuiteExportOptions {
  /**
   * Where the model's first- and last-label weights go, which CRFsuite has no place for: added to
   * the state features of these attributes (CRFsuite's own feature scripts put `__BOS__` on the
   * first token and `__EOS__` on the last, as Lagrange's chunking preset does), so a CRFsuite
   * tagger given them on exactly those tokens scores as the model does. Without it, a model with
   * a non-zero first/last weight cannot be exported.
   */
  readonly boundaryAttributes?: { readonly first: string; readonly last: string };
}

/** A model that cannot be expressed as a CRFsuite model (what it has that CRFsuite lacks). */
export class CrfsuiteExportError extends LagrangeError {
  override readonly name = "CrfsuiteExportError";
  constructor(reason: string) {
    super("bad-input", `cannot export to CRFsuite: ${reason}`);
  }
}

const encoder = new TextEncoder();

/**
 * The bytes of a CRFsuite model file that CRFsuite's tagger opens and that labels every attribute
 * sequence as `model` does. Like CRFsuite's trainer, only non-zero weights become features and
 * attributes left with none are dropped.
 */
export function crfsuiteModelToBytes(
  model: CrfModel,
  options: CrfsuiteExportOptions = {},
): Uint8Array {
  const { layout, weights } = model;
  const L = layout.numLabels;
  // CRFsuite's chain is first-order: a label trigram's weight would be dropped without a word.
  if (model.trigrams?.some((w) => w !== 0) === true) {
    throw new CrfsuiteExportError(
      "the model is second-order (label-trigram weights, train --order 2), which CRFsuite lacks",
    );
  }
  for (let f = 0; f < layout.transitionFeaturePairs.length; f++) {
    if (weights[layout.transitionAttributeBase + f] !== 0) {
      throw new CrfsuiteExportError(
        "the model has observation-conditioned transition features (CRF++ B templates), which CRFsuite lacks",
      );
    }
  }
  // State features as (attribute name, label, weight), first/last weights folded in when asked.
  const stateRows = new Map<string, Float64Array>();
  const order: string[] = [];
  const rowOf = (name: string): Float64Array => {
    let row = stateRows.get(name);
    if (row === undefined) {
      row = new Float64Array(L);
      stateRows.set(name, row);
      order.push(name);
    }
    return row;
  };
  for (let a = 0; a < layout.numAttributes; a++) {
    const name = model.attributes.name(a);
    for (let f = layout.attributeOffsets[a]!; f < layout.attributeOffsets[a + 1]!; f++) {
      if (weights[f] !== 0) rowOf(name)[layout.featureLabels[f]!]! += weights[f]!;
    }
  }
  if (layout.startBase >= 0) {
    const boundary: Array<[number, "first" | "last"]> = [
      [layout.startBase, "first"],
      [layout.endBase, "last"],
    ];
    for (const [base, which] of boundary) {
      let nonZero = false;
      for (let t = 0; t < L; t++) if (weights[base + t] !== 0) nonZero = true;
      if (!nonZero) continue;
      const name = options.boundaryAttributes?.[which];
      if (name === undefined) {
        throw new CrfsuiteExportError(
          `the model has ${which}-label weights, which CRFsuite lacks; name the attributes that mark the first and last tokens (boundary attributes, e.g. __BOS__ and __EOS__) to carry them`,
        );
      }
      const row = rowOf(name);
      for (let t = 0; t < L; t++) row[t]! += weights[base + t]!;
    }
  }

  const keyOf = (name: string, what: string): Uint8Array => {
    if (name.includes("\0"))
      throw new CrfsuiteExportError(`${what} ${JSON.stringify(name)} contains a NUL character`);
    return encoder.encode(name);
  };
  const labelKeys = model.labels.names().map((n) => keyOf(n, "label"));
  const attributeNames = order.filter((name) => stateRows.get(name)!.some((w) => w !== 0));
  const attributeKeys = attributeNames.map((n) => keyOf(n, "attribute"));

  const w = new ByteWriter();
  for (let i = 0; i < HEADER_SIZE / 4; i++) w.u32(0);

  // Features: state features by attribute, then transitions; their ids go into the reference lists.
  const offFeatures = w.length;
  w.ascii("FEAT");
  w.u32(0);
  w.u32(0);
  let K = 0;
  const attrFeatures: number[][] = [];
  for (let a = 0; a < attributeNames.length; a++) {
    const row = stateRows.get(attributeNames[a]!)!;
    const ids: number[] = [];
    for (let t = 0; t < L; t++) {
      if (row[t] === 0) continue;
      w.u32(FT_STATE);
      w.u32(a);
      w.u32(t);
      w.f64(row[t]!);
      ids.push(K++);
    }
    attrFeatures.push(ids);
  }
  const labelFeatures: number[][] = [];
  for (let i = 0; i < L; i++) {
    const ids: number[] = [];
    for (let j = 0; j < L; j++) {
      const weight = weights[layout.transitionBase + i * L + j]!;
      if (weight === 0) continue;
      w.u32(FT_TRANS);
      w.u32(i);
      w.u32(j);
      w.f64(weight);
      ids.push(K++);
    }
    labelFeatures.push(ids);
  }
  w.patchU32(offFeatures + 4, w.length - offFeatures);
  w.patchU32(offFeatures + 8, K);

  const offLabels = w.length;
  w.raw(writeCqdb(labelKeys));
  const offAttrs = w.length;
  w.raw(writeCqdb(attributeKeys));

  const writeRefs = (tag: string, lists: readonly number[][]): number => {
    w.align(4);
    const begin = w.length;
    w.ascii(tag);
    w.u32(0);
    w.u32(lists.length);
    const table = w.length;
    for (let i = 0; i < lists.length; i++) w.u32(0);
    lists.forEach((ids, i) => {
      w.patchU32(table + i * 4, w.length);
      w.u32(ids.length);
      for (const id of ids) w.u32(id);
    });
    w.patchU32(begin + 4, w.length - begin);
    return begin;
  };
  const offLabelRefs = writeRefs("LFRF", labelFeatures);
  const offAttrRefs = writeRefs("AFRF", attrFeatures);

  const header = [
    0x4652436c, // "lCRF"
    w.length,
    0x434d4f46, // "FOMC"
    VERSION,
    K,
    L,
    attributeNames.length,
    offFeatures,
    offLabels,
    offAttrs,
    offLabelRefs,
    offAttrRefs,
  ];
  if (w.length > 0xffffffff) {
    throw new CrfsuiteExportError("the model exceeds CRFsuite's 4 GiB file limit");
  }
  for (let i = 0; i < header.length; i++) w.patchU32(i * 4, header[i]!);
  return w.finish();
}
