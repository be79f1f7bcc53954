import { LabelSet, LagrangeError } from "@lagrange/core";
import { crc32, formatByteSize } from "@lagrange/core/bytes";
import { MAX_WEIGHT_MAGNITUDE } from "@lagrange/core/chain";
import { CrfModel, type JsonValue } from "./crf-model.js";
import { MODEL_RECORD_KEYS, modelRecordOf } from "./crf-model-types.js";
import { presets } from "./features/presets.js";
import type { FeatureLayout } from "./model/layout.js";
import {
  checkLayout,
  describe,
  foreignFileReason,
  hex,
  isRecord,
  unknownFeatureBase,
} from "./model-file-checks.js";

/**
 * Model file layout (all integers little-endian):
 *   0   8 bytes  magic "LGRCRF\r\n" (the CR LF catches text-mode transfers, as PNG's does)
 *   8   u32      format version (MODEL_FORMAT_VERSION)
 *   12  u32      header length H in bytes
 *   16  H bytes  header: UTF-8 JSON, space-padded so the binary part starts 8-byte aligned
 *   16+H         binary sections, each 8-byte aligned, at the offsets the header lists
 *   end−4 u32    CRC-32 of every preceding byte
 * The header names the model's `kind` and the `features` a reader must know to use it (a name
 * this build does not know is refused, so that no build tags without a part of the model), the
 * labels, attribute dictionaries, preset, the model's record (scheme, task preset, decoder,
 * general CRF: typed fields), the other training settings and the layout's scalars; the sections
 * hold the layout arrays (int32) and the weights (float32 or float64). Feature `first-stage` adds
 * a `firstStage` section (uint8: the first stage's own model file), `second-order` a `trigrams`
 * section (L³ label-trigram weights, the weights' precision), `general-crf` the header's
 * `generalCrf`, `constraints` the header's `learnedConstraints` (a constraints file's JSON, which
 * `lagrange tag` decodes with under the header's `decoder` when the user names no constraints).
 * Feature `quantised-weights` (a file feature, not the model's: `lagrange compress` writes it)
 * stores the weights as int8 or int16 with a `weightScales` section (float32, ≥ 0), one scale per
 * block of the header's `quantisation.blockSize` weights: weight k is its integer times scale
 * ⌊k / blockSize⌋; the trigrams are then float32. Every weight read is checked as a float one is.
 * File feature `compact-layout` stores an `attributeCounts` section (each attribute's number of
 * state features, uint8, uint16 or int32) instead of `attributeOffsets`, and `featureLabels` as
 * uint8 or uint16 where the labels fit: gzip shrinks counts ~25×, rising offsets ~1.5×.
 *
 * Versions 1 to 3 said the same with a version per feature, a header without kind, features or
 * record fields (the record inside `settings`): 1 plain, 2 with a first stage, 3 second order
 * (with or without a first stage). This build still reads them; it writes version 4 only.
 */
export const MODEL_FORMAT_VERSION = 4;
const FIRST_STAGE_FORMAT_VERSION = 2;
const SECOND_ORDER_FORMAT_VERSION = 3;
const OLDEST_FORMAT_VERSION = 1;
const MODEL_KIND = "chain-crf";
/**
 * The features this build reads, each what a reader without it would tag wrongly: the model's,
 * then the file's own (how it stores the model).
 */
const MODEL_FEATURES = [
  "first-stage",
  "second-order",
  "general-crf",
  "constraints",
  "quantised-weights",
  "compact-layout",
] as const;
type ModelFeature = CrfModel["features"][number];
type FileFeature = ModelFeature | "quantised-weights" | "compact-layout";
/** Where a file holds each feature's part of the model. */
const FEATURE_PARTS: Record<FileFeature, string> = {
  "first-stage": "firstStage section",
  "second-order": "trigrams section",
  "general-crf": "generalCrf field",
  constraints: "learnedConstraints field",
  "quantised-weights": "quantisation field",
  "compact-layout": "attributeCounts section",
};
const MAGIC = [0x4c, 0x47, 0x52, 0x43, 0x52, 0x46, 0x0d, 0x0a]; // "LGRCRF\r\n"
const PREAMBLE = 16;

/**
 * Whether `bytes` start with the letters of a Lagrange model's magic ("LGRCRF"), whatever a
 * text-mode copy did to the line break after them: another reader (CRFsuite's) can then say the
 * file is a Lagrange model rather than a malformed one of its own. Internal to the package.
 */
export function hasLagrangeMagic(bytes: Uint8Array): boolean {
  for (let k = 0; k < MAGIC.length - 2; k++) if (bytes[k] !== MAGIC[k]) return false;
  return true;
}

export type WeightPrecision = "float32" | "float64" | "int8" | "int16";

/**
 * Weights per scale in a quantised file. A block holds neighbouring weights, the features of a
 * few dozen attributes of similar frequency (attribute ids go by frequency), hence of similar
 * magnitude, so one scale fits them; the scales cost 4 bytes a block, 1.6% of int8 weights at 256
 * (64 would cost 6%), while a longer block lets one strong weight coarsen more weak ones.
 */
export const QUANTISATION_BLOCK_SIZE = 256;

export interface SaveOptions {
  /**
   * float32 (default) halves the file; a CRF's weights need far fewer than 7 significant digits
   * (the optimiser stops long before), so decoding is unchanged in practice. float64 reproduces
   * the in-memory model bit for bit (to resume training or compare exactly). int8 and int16
   * quantise the weights, one scale per block: each weight moves by at most half its block's
   * scale (the block's largest |weight| / 127, or / 32767), and the file needs a reader that
   * knows feature `quantised-weights`.
   */
  readonly precision?: WeightPrecision;
  /** int8 and int16: the weights per scale (default {@link QUANTISATION_BLOCK_SIZE}). */
  readonly blockSize?: number;
  /**
   * Attribute offsets as per-attribute counts and feature labels in the narrowest type (feature
   * `compact-layout`): gzip then shrinks them ~25× rather than ~1.5×, which counts once
   * quantisation has made the weights small. Off by default: a reader needs this release.
   */
  readonly compactLayout?: boolean;
}

/** How a model file stores its weights and layout. */
export interface ModelFileEncoding {
  readonly precision: WeightPrecision;
  /** A quantised file's weights per scale. */
  readonly blockSize?: number;
  /** Feature compact-layout. */
  readonly compactLayout: boolean;
}

/** The largest integer a quantised weight is stored as (the range is symmetric). */
const QUANTISED_MAX = { int8: 127, int16: 32767 } as const;
type QuantisedType = keyof typeof QUANTISED_MAX;
const isQuantised = (precision: WeightPrecision): precision is QuantisedType =>
  precision === "int8" || precision === "int16";

/** A model file that cannot be read, naming the file and what is wrong with it. */
export class ModelFileError extends LagrangeError {
  override readonly name = "ModelFileError";
  constructor(
    readonly file: string,
    readonly reason: string,
  ) {
    super("bad-input", `${file}: ${reason}`);
  }
}

interface SectionEntry {
  readonly name: string;
  readonly type: "int32" | "float32" | "float64" | "uint8" | "uint16" | "int8" | "int16";
  readonly length: number;
  /** Byte offset from the start of the binary part. */
  readonly offset: number;
}

type Settings = { readonly [key: string]: JsonValue };

/** A format 4 header; versions 1 to 3 have `format` instead of `kind` and `features`. */
interface Header {
  readonly kind: typeof MODEL_KIND;
  readonly features: FileFeature[];
  readonly labels: string[];
  readonly attributes: string[];
  readonly transitionAttributes: string[];
  readonly preset: string | null;
  readonly scheme?: string;
  readonly taskPreset?: string;
  readonly decoder?: string;
  readonly generalCrf?: JsonValue;
  readonly learnedConstraints?: JsonValue;
  /** Feature quantised-weights: the weights per scale. */
  readonly quantisation?: { readonly blockSize: number };
  /** Provenance: how the model was trained (in versions 1 to 3, with the record's fields). */
  readonly settings: Settings;
  readonly layout: {
    readonly numLabels: number;
    readonly numAttributes: number;
    readonly transitionBase: number;
    readonly startBase: number;
    readonly endBase: number;
    readonly numTransitionAttributes: number;
    readonly transitionAttributeBase: number;
    readonly numWeights: number;
  };
  readonly sections: SectionEntry[];
  readonly binaryLength: number;
}

const ELEMENT_SIZE = {
  int32: 4,
  float32: 4,
  float64: 8,
  uint8: 1,
  uint16: 2,
  int8: 1,
  int16: 2,
} as const;

// How each model read from a file was stored there (for `lagrange info`).
const encodings = new WeakMap<CrfModel, ModelFileEncoding>();

/** How the file `model` was read from stores it; null for a model not read from a file. */
export function modelFileEncoding(model: CrfModel): ModelFileEncoding | null {
  return encodings.get(model) ?? null;
}

/** The narrowest of uint8, uint16 and int32 that holds every value up to `largest`. */
const unsignedType = (largest: number): "uint8" | "uint16" | "int32" =>
  largest <= 0xff ? "uint8" : largest <= 0xffff ? "uint16" : "int32";

// The first stages read from model files, so that recipes run them without parsing them again.
const firstStages = new WeakMap<Uint8Array, CrfModel>();

/**
 * A two-stage model's first stage as a model (read from its embedded bytes once, then cached);
 * null for a model without one. `file` names the outer model in errors.
 */
export function firstStageModel(model: CrfModel, file = "<model bytes>"): CrfModel | null {
  const bytes = model.firstStage;
  if (bytes === null) return null;
  let first = firstStages.get(bytes);
  if (first === undefined) {
    first = loadModelFromBytes(bytes, `${file} (its first stage)`);
    firstStages.set(bytes, first);
  }
  return first;
}

const align8 = (x: number): number => (x + 7) & ~7;

/** The model as the bytes of a model file. */
export function modelToBytes(model: CrfModel, options: SaveOptions = {}): Uint8Array {
  const precision = options.precision ?? "float32";
  const blockSize = options.blockSize ?? QUANTISATION_BLOCK_SIZE;
  if (!Number.isSafeInteger(blockSize) || blockSize < 1) {
    throw new RangeError(`blockSize must be an integer ≥ 1, got ${blockSize}`);
  }
  const { layout } = model;
  const compact = options.compactLayout === true;
  const arrays: Array<[string, SectionEntry["type"], ArrayLike<number>]> = [];
  if (compact) {
    const offsets = layout.attributeOffsets;
    const counts = new Int32Array(layout.numAttributes);
    let most = 0;
    for (let a = 0; a < counts.length; a++) {
      counts[a] = offsets[a + 1]! - offsets[a]!;
      most = Math.max(most, counts[a]!);
    }
    arrays.push(
      ["attributeCounts", unsignedType(most), counts],
      ["featureLabels", unsignedType(layout.numLabels - 1), layout.featureLabels],
    );
  } else {
    arrays.push(
      ["attributeOffsets", "int32", layout.attributeOffsets],
      ["featureLabels", "int32", layout.featureLabels],
    );
  }
  arrays.push(
    ["transitionAttributeOffsets", "int32", layout.transitionAttributeOffsets],
    ["transitionFeaturePairs", "int32", layout.transitionFeaturePairs],
  );
  if (isQuantised(precision)) {
    const { values, scales } = quantise(model.weights, precision, blockSize);
    arrays.push(["weights", precision, values], ["weightScales", "float32", scales]);
  } else {
    arrays.push(["weights", precision, model.weights]);
  }
  if (model.firstStage !== null) arrays.push(["firstStage", "uint8", model.firstStage]);
  // L³ trigram weights are few: quantising them would save little and move every path's score.
  const floats = isQuantised(precision) ? "float32" : precision;
  if (model.trigrams !== null) arrays.push(["trigrams", floats, model.trigrams]);
  const sections: SectionEntry[] = [];
  let offset = 0;
  for (const [name, type, data] of arrays) {
    sections.push({ name, type, length: data.length, offset });
    offset = align8(offset + data.length * ELEMENT_SIZE[type]);
  }
  const { settings, record } = splitRecord(model.settings);
  const header: Header = {
    kind: MODEL_KIND,
    features: [
      ...model.features,
      ...(isQuantised(precision) ? (["quantised-weights"] as const) : []),
      ...(compact ? (["compact-layout"] as const) : []),
    ],
    labels: [...model.labels.names()],
    attributes: [...model.attributes.names()],
    transitionAttributes: [...model.transitionAttributes.names()],
    preset: model.preset,
    ...record,
    ...(isQuantised(precision) ? { quantisation: { blockSize } } : {}),
    settings,
    layout: {
      numLabels: layout.numLabels,
      numAttributes: layout.numAttributes,
      transitionBase: layout.transitionBase,
      startBase: layout.startBase,
      endBase: layout.endBase,
      numTransitionAttributes: layout.numTransitionAttributes,
      transitionAttributeBase: layout.transitionAttributeBase,
      numWeights: layout.numWeights,
    },
    sections,
    binaryLength: offset,
  };
  const json = new TextEncoder().encode(JSON.stringify(header));
  const headerLength = align8(PREAMBLE + json.length) - PREAMBLE;
  const binaryStart = PREAMBLE + headerLength;
  const total = binaryStart + offset + 4;
  const bytes = new Uint8Array(total);
  const view = new DataView(bytes.buffer);
  bytes.set(MAGIC, 0);
  view.setUint32(8, MODEL_FORMAT_VERSION, true);
  view.setUint32(12, headerLength, true);
  bytes.set(json, PREAMBLE);
  bytes.fill(0x20, PREAMBLE + json.length, binaryStart);
  for (let s = 0; s < sections.length; s++) {
    const { type, offset: at } = sections[s]!;
    const data = arrays[s]![2];
    const base = binaryStart + at;
    if (type === "uint8") {
      bytes.set(data as Uint8Array, base);
      continue;
    }
    for (let k = 0; k < data.length; k++) {
      const x = data[k]!;
      if (type === "int8") view.setInt8(base + k, x);
      else if (type === "uint16") view.setUint16(base + 2 * k, x, true);
      else if (type === "int16") view.setInt16(base + 2 * k, x, true);
      else if (type === "int32") view.setInt32(base + 4 * k, x, true);
      else if (type === "float32") view.setFloat32(base + 4 * k, x, true);
      else view.setFloat64(base + 8 * k, x, true);
    }
  }
  view.setUint32(total - 4, crc32(bytes, 0, total - 4), true);
  return bytes;
}

/**
 * The weights as integers in ±QUANTISED_MAX[type] and one float32 scale per block of `blockSize`:
 * the block's largest |weight| / QUANTISED_MAX, so each weight moves by at most half a scale.
 */
function quantise(
  weights: Float64Array,
  type: QuantisedType,
  blockSize: number,
): { readonly values: Int8Array | Int16Array; readonly scales: Float32Array } {
  const top = QUANTISED_MAX[type];
  const values = type === "int8" ? new Int8Array(weights.length) : new Int16Array(weights.length);
  const scales = new Float32Array(Math.ceil(weights.length / blockSize));
  for (let b = 0; b < scales.length; b++) {
    const from = b * blockSize;
    const to = Math.min(from + blockSize, weights.length);
    let largest = 0;
    for (let k = from; k < to; k++) largest = Math.max(largest, Math.abs(weights[k]!));
    // The float32 rounding moves the scale by 2^-24 of itself at most: |w| / scale stays within
    // top + 0.5, so no integer needs clamping. A block below float32's range stores zeros.
    const scale = Math.fround(largest / top);
    scales[b] = scale;
    if (scale === 0) continue;
    for (let k = from; k < to; k++) values[k] = Math.round(weights[k]! / scale);
  }
  return { values, scales };
}

/** A model's settings as a format 4 header keeps them: the record's fields apart, the rest. */
function splitRecord(all: Settings): {
  readonly settings: Settings;
  readonly record: { [key: string]: JsonValue };
} {
  const settings: { [key: string]: JsonValue } = {};
  const record: { [key: string]: JsonValue } = {};
  for (const [key, value] of Object.entries(all)) {
    if ((MODEL_RECORD_KEYS as readonly string[]).includes(key)) record[key] = value;
    else settings[key] = value;
  }
  return { settings, record };
}

/** Reads a model from the bytes of a model file (no file system: works in a browser). */
export function loadModelFromBytes(bytes: Uint8Array, file = "<model bytes>"): CrfModel {
  const fail = (reason: string): never => {
    throw new ModelFileError(file, reason);
  };
  if (bytes.length < PREAMBLE) {
    fail(`truncated: ${bytes.length} bytes, shorter than the ${PREAMBLE}-byte preamble`);
  }
  for (let k = 0; k < MAGIC.length; k++) {
    if (bytes[k] !== MAGIC[k]) fail(foreignFileReason(bytes, file));
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = view.getUint32(8, true);
  if (version < OLDEST_FORMAT_VERSION || version > MODEL_FORMAT_VERSION) {
    fail(
      `model format version ${version}, but this build of @lagrange/chain-crf reads versions ${OLDEST_FORMAT_VERSION} to ${MODEL_FORMAT_VERSION}${version > MODEL_FORMAT_VERSION ? " (written by a newer release: upgrade)" : " (retrain or convert the model)"}`,
    );
  }
  const legacy = version < MODEL_FORMAT_VERSION;
  const headerLength = view.getUint32(12, true);
  if (PREAMBLE + headerLength + 4 > bytes.length) {
    fail(
      `truncated: the header alone needs ${PREAMBLE + headerLength + 4} bytes, the file has ${bytes.length}`,
    );
  }
  let header: Header;
  try {
    header = JSON.parse(
      new TextDecoder("utf-8", { fatal: true }).decode(
        bytes.subarray(PREAMBLE, PREAMBLE + headerLength),
      ),
    ) as Header;
  } catch (error) {
    return fail(`corrupted header (not valid UTF-8 JSON: ${(error as Error).message})`);
  }
  if (
    !isRecord(header) ||
    (legacy ? header.format !== "lagrange-chain-crf" : typeof header.kind !== "string")
  ) {
    fail(`corrupted header (missing ${legacy ? "format" : "kind"} or sizes)`);
  }
  const binaryLength = header.binaryLength;
  if (!Number.isSafeInteger(binaryLength) || binaryLength < 0) {
    fail(`header: binaryLength is ${describe(binaryLength)}; expected an integer ≥ 0`);
  }
  const binaryStart = PREAMBLE + headerLength;
  const expected = binaryStart + binaryLength + 4;
  if (bytes.length < expected) fail(`truncated: expected ${expected} bytes, got ${bytes.length}`);
  if (bytes.length > expected) {
    fail(
      `${bytes.length - expected} unexpected trailing bytes after the checksum (expected ${expected} bytes)`,
    );
  }
  const stored = view.getUint32(expected - 4, true);
  const actual = crc32(bytes, 0, expected - 4);
  if (stored !== actual) {
    fail(
      `checksum mismatch (stored CRC-32 ${hex(stored)}, computed ${hex(actual)}): the file is corrupted`,
    );
  }
  if (!legacy && header.kind !== MODEL_KIND) {
    fail(
      `a model of kind ${JSON.stringify(header.kind)}: this build of @lagrange/chain-crf reads ${MODEL_KIND} models (a newer release may read it)`,
    );
  }
  const hasSection = (name: string): boolean =>
    Array.isArray(header.sections) &&
    (header.sections as unknown[]).some((s) => isRecord(s) && s.name === name);
  const hasFirstStage = hasSection("firstStage");
  const hasTrigrams = hasSection("trigrams");
  const features: ReadonlySet<FileFeature> = legacy
    ? legacyFeatures(version, hasFirstStage)
    : declaredFeatures(header.features, fail);
  const requireAgreement = (feature: FileFeature, present: boolean) => {
    if (present === features.has(feature)) return;
    const claim = legacy
      ? `a version ${version} file has ${present ? "no " : ""}feature ${feature}`
      : `the header's features ${present ? "do not list" : "list"} ${feature}`;
    const part = FEATURE_PARTS[feature];
    fail(`${present ? (/^[aeiou]/.test(part) ? "an" : "a") : "no"} ${part}, but ${claim}`);
  };
  requireAgreement("first-stage", hasFirstStage);
  requireAgreement("second-order", hasTrigrams);
  if (!legacy) {
    requireAgreement("general-crf", header.generalCrf !== undefined);
    requireAgreement("constraints", header.learnedConstraints !== undefined);
    requireAgreement("quantised-weights", header.quantisation !== undefined);
    requireAgreement("compact-layout", hasSection("attributeCounts"));
  }
  // Every declared length and offset is checked against the bytes present before anything is
  // allocated: a crafted header (valid checksum, a length of 2^32 or −1) is a malformed file,
  // never a 12 GB allocation or "Invalid typed array length".
  const section = (name: string, types: readonly SectionEntry["type"][]): SectionEntry =>
    checkedSection(header.sections, name, types, binaryLength, fail);
  const compact = features.has("compact-layout");
  const readInt32 = (name: string, types: readonly SectionEntry["type"][] = ["int32"]) => {
    const { length, offset, type } = section(name, types);
    const out = new Int32Array(length);
    const base = binaryStart + offset;
    for (let k = 0; k < length; k++) {
      out[k] =
        type === "uint8"
          ? view.getUint8(base + k)
          : type === "uint16"
            ? view.getUint16(base + 2 * k, true)
            : view.getInt32(base + 4 * k, true);
    }
    return out;
  };
  // Weights a quantised file stores as integers are their integer times their block's scale.
  let scales: Float64Array | null = null;
  let blockSize = 1;
  let weightsType: WeightPrecision = "float32";
  if (features.has("quantised-weights")) {
    blockSize = checkedBlockSize(header.quantisation, fail);
    const count = section("weights", ["int8", "int16"]).length;
    const s = section("weightScales", ["float32"]);
    const blocks = Math.ceil(count / blockSize);
    if (s.length !== blocks) {
      fail(
        `section "weightScales" holds ${s.length} scales; expected ${blocks}, one per block of ${blockSize} of the ${count} weights`,
      );
    }
    scales = new Float64Array(blocks);
    const sBase = binaryStart + s.offset;
    for (let b = 0; b < blocks; b++) {
      const x = view.getFloat32(sBase + 4 * b, true);
      if (!(x >= 0 && x < Number.POSITIVE_INFINITY)) {
        fail(
          `weight scale ${b} (byte ${sBase + 4 * b}) is ${x}; expected a finite number ≥ 0 (the scale of weights ${b * blockSize} to ${Math.min((b + 1) * blockSize, count) - 1})`,
        );
      }
      scales[b] = x;
    }
  }
  const readWeights = (name: string, what: string): Float64Array => {
    const w =
      name === "weights" && scales !== null
        ? section(name, ["int8", "int16"])
        : section(name, ["float32", "float64"]);
    const out = new Float64Array(w.length);
    const wBase = binaryStart + w.offset;
    const width = ELEMENT_SIZE[w.type];
    const type = w.type;
    if (name === "weights") weightsType = type as WeightPrecision;
    for (let k = 0; k < w.length; k++) {
      const at = wBase + width * k;
      const x =
        type === "float32"
          ? view.getFloat32(at, true)
          : type === "float64"
            ? view.getFloat64(at, true)
            : (type === "int8" ? view.getInt8(at) : view.getInt16(at, true)) *
              scales![Math.floor(k / blockSize)]!;
      if (!(Math.abs(x) <= MAX_WEIGHT_MAGNITUDE)) {
        fail(
          `${what} ${k} (byte ${wBase + width * k}) is ${x}: every weight must be a finite number of magnitude at most ${MAX_WEIGHT_MAGNITUDE} (no training produces one beyond it, and a sentence's score could overflow to ±Infinity)`,
        );
      }
      out[k] = x;
    }
    return out;
  };
  let firstStage: Uint8Array | null = null;
  if (hasFirstStage) {
    const { length, offset } = section("firstStage", ["uint8"]);
    const embedded = bytes.subarray(binaryStart + offset, binaryStart + offset + length);
    // Checked from the embedded header alone, before any section is decoded: a crafted file
    // nesting stages a thousand deep would otherwise copy and decode each level first.
    if (declaresFirstStage(embedded)) {
      fail("section firstStage: its first stage has a first stage of its own (one level at most)");
    }
    firstStage = embedded.slice();
  }
  const weights = readWeights("weights", "weight");
  const h = checkedLayoutScalars(header.layout, fail);
  const UNSIGNED = ["uint8", "uint16", "int32"] as const;
  const featureLabels = readInt32("featureLabels", compact ? UNSIGNED : ["int32"]);
  const attributeOffsets = compact
    ? offsetsOfCounts(readInt32("attributeCounts", UNSIGNED), featureLabels.length, fail)
    : readInt32("attributeOffsets");
  const layout: FeatureLayout = {
    numLabels: h.numLabels,
    numAttributes: h.numAttributes,
    attributeOffsets,
    featureLabels,
    transitionBase: h.transitionBase,
    startBase: h.startBase,
    endBase: h.endBase,
    numTransitionAttributes: h.numTransitionAttributes,
    transitionAttributeOffsets: readInt32("transitionAttributeOffsets"),
    transitionFeaturePairs: readInt32("transitionFeaturePairs"),
    transitionAttributeBase: h.transitionAttributeBase,
    numWeights: h.numWeights,
  };
  checkLayout(layout, fail);
  const trigrams = hasTrigrams ? readWeights("trigrams", "trigram weight") : null;
  for (const key of ["labels", "attributes", "transitionAttributes"] as const) {
    const names: unknown = header[key];
    if (!Array.isArray(names) || !names.every((x) => typeof x === "string")) {
      fail(`header: ${key} is not a list of names`);
    }
  }
  if (header.preset != null && typeof header.preset !== "string") {
    fail(`header: preset is ${describe(header.preset)}; expected a name or null`);
  }
  if (header.settings !== undefined && !isRecord(header.settings)) {
    fail(`header: settings is ${describe(header.settings)}; expected an object`);
  }
  const settings = legacy ? (header.settings ?? {}) : withRecord(header, fail);
  const record = modelRecordOf(settings);
  if (typeof record === "string") fail(`header: ${legacy ? "settings." : ""}${record}`);
  const unknown = unknownFeatureBase(header.preset, header.settings);
  if (unknown !== null) {
    fail(
      `the model names preset ${JSON.stringify(unknown)}, which this version does not know (feature presets: ${Object.keys(presets).join(", ")}; a newer release may know it)`,
    );
  }
  let model: CrfModel;
  try {
    model = new CrfModel({
      labels: LabelSet.from(header.labels),
      attributes: LabelSet.from(header.attributes),
      transitionAttributes: LabelSet.from(header.transitionAttributes),
      layout,
      weights,
      preset: header.preset ?? null,
      settings,
      firstStage,
      trigrams,
    });
  } catch (error) {
    return fail(`inconsistent model: ${(error as Error).message}`);
  }
  encodings.set(model, {
    precision: weightsType,
    ...(scales === null ? {} : { blockSize }),
    compactLayout: compact,
  });
  // The embedded first stage is a model file of its own: read (and checked) now, so that a bad
  // one is this file's error at load time, not one halfway through tagging.
  if (firstStage !== null) {
    firstStages.set(firstStage, loadModelFromBytes(firstStage, `${file} (its first stage)`));
  }
  return model;
}

/** The features a version 1 to 3 file implies (its version, and a first-stage section in 3). */
function legacyFeatures(version: number, hasFirstStage: boolean): ReadonlySet<ModelFeature> {
  if (version === FIRST_STAGE_FORMAT_VERSION) return new Set(["first-stage"]);
  if (version !== SECOND_ORDER_FORMAT_VERSION) return new Set();
  return new Set(hasFirstStage ? ["second-order", "first-stage"] : ["second-order"]);
}

/**
 * A format 4 header's features: names this build knows, each a part of the model that a reader
 * without it would leave out, so an unknown one refuses the file rather than tag without it.
 */
function declaredFeatures(
  value: unknown,
  fail: (reason: string) => never,
): ReadonlySet<FileFeature> {
  if (!Array.isArray(value) || !value.every((x) => typeof x === "string")) {
    return fail(`header: features is ${describe(value)}; expected a list of names`);
  }
  for (const name of value as string[]) {
    if (!(MODEL_FEATURES as readonly string[]).includes(name)) {
      fail(
        `the model uses feature ${JSON.stringify(name)}, which this build of @lagrange/chain-crf does not know (it reads ${MODEL_FEATURES.join(", ")}): a newer release may read it`,
      );
    }
  }
  return new Set(value as FileFeature[]);
}

/** A format 4 header's settings with its record's fields, as a model holds them. */
function withRecord(header: Header, fail: (reason: string) => never): Settings {
  const settings: { [key: string]: JsonValue } = { ...header.settings };
  for (const key of MODEL_RECORD_KEYS) {
    if (Object.hasOwn(settings, key)) {
      fail(`header: settings.${key}, where format ${MODEL_FORMAT_VERSION} has a field ${key}`);
    }
    const value = header[key];
    if (value !== undefined) settings[key] = value;
  }
  return settings;
}

/**
 * Whether a model file's bytes declare a first stage of their own, from the preamble and header
 * alone (a malformed file says no: reading it in full then names what is wrong).
 */
function declaresFirstStage(bytes: Uint8Array): boolean {
  if (bytes.length < PREAMBLE) return false;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = view.getUint32(8, true);
  if (version === FIRST_STAGE_FORMAT_VERSION) return true;
  if (version < SECOND_ORDER_FORMAT_VERSION) return false;
  const headerLength = view.getUint32(12, true);
  if (PREAMBLE + headerLength > bytes.length) return false;
  try {
    const header: unknown = JSON.parse(
      new TextDecoder().decode(bytes.subarray(PREAMBLE, PREAMBLE + headerLength)),
    );
    return (
      isRecord(header) &&
      Array.isArray(header.sections) &&
      (header.sections as unknown[]).some((s) => isRecord(s) && s.name === "firstStage")
    );
  } catch {
    return false;
  }
}

/**
 * The header's section `name`: stored as one of `types`, its length and offset integers ≥ 0, and
 * its values within the binary part's `binaryLength` bytes.
 */
function checkedSection(
  sections: unknown,
  name: string,
  types: readonly SectionEntry["type"][],
  binaryLength: number,
  fail: (reason: string) => never,
): SectionEntry {
  const entry: unknown = Array.isArray(sections)
    ? (sections as unknown[]).find((s) => isRecord(s) && s.name === name)
    : undefined;
  if (!isRecord(entry)) return fail(`missing section "${name}"`);
  const { type, length, offset } = entry;
  if (!types.includes(type as SectionEntry["type"])) {
    fail(`section "${name}" stored as ${describe(type)}; expected ${types.join(" or ")}`);
  }
  const size = ELEMENT_SIZE[type as SectionEntry["type"]];
  if (!Number.isSafeInteger(length) || (length as number) < 0) {
    fail(`section "${name}" declares a length of ${describe(length)}; expected an integer ≥ 0`);
  }
  if (!Number.isSafeInteger(offset) || (offset as number) < 0) {
    fail(`section "${name}" declares an offset of ${describe(offset)}; expected an integer ≥ 0`);
  }
  const at = offset as number;
  const count = length as number;
  const left = Math.max(0, binaryLength - at);
  if (count * size > left) {
    fail(
      `section "${name}" declares ${count} ${type} values (${formatByteSize(count * size)}) at byte ${at} of the binary part, but the file has ${formatByteSize(left)} left there`,
    );
  }
  return { name, type: type as SectionEntry["type"], length: count, offset: at };
}

/**
 * A compact-layout file's attribute offsets from its per-attribute counts, which must add up to
 * the `features` state features (a negative int32 count, or a wrong sum, is a malformed file).
 */
function offsetsOfCounts(
  counts: Int32Array,
  features: number,
  fail: (reason: string) => never,
): Int32Array {
  const offsets = new Int32Array(counts.length + 1);
  let sum = 0;
  for (let a = 0; a < counts.length; a++) {
    const count = counts[a]!;
    if (count < 0) fail(`section "attributeCounts": count ${a} is ${count}; expected ≥ 0`);
    sum += count;
    if (sum > features) break;
    offsets[a + 1] = sum;
  }
  if (sum !== features) {
    fail(
      `section "attributeCounts" adds up to ${sum > features ? `more than ${features}` : sum} state features; expected ${features} (the featureLabels section's length)`,
    );
  }
  return offsets;
}

/** A quantised file's weights per scale: its header's `quantisation.blockSize`, an integer ≥ 1. */
function checkedBlockSize(value: unknown, fail: (reason: string) => never): number {
  const size = isRecord(value) ? value.blockSize : undefined;
  if (!Number.isSafeInteger(size) || (size as number) < 1) {
    fail(
      `header: quantisation.blockSize is ${describe(size)}; expected an integer ≥ 1 (the weights per scale)`,
    );
  }
  return size as number;
}

/** The layout's scalars, each a safe integer (−1 allowed for the absent start/end blocks). */
function checkedLayoutScalars(value: unknown, fail: (reason: string) => never): Header["layout"] {
  if (!isRecord(value)) return fail("header: missing layout");
  for (const key of [
    "numLabels",
    "numAttributes",
    "transitionBase",
    "startBase",
    "endBase",
    "numTransitionAttributes",
    "transitionAttributeBase",
    "numWeights",
  ]) {
    const x = value[key];
    if (!Number.isSafeInteger(x) || (x as number) < -1) {
      fail(`header: layout.${key} is ${describe(x)}; expected an integer`);
    }
  }
  return value as unknown as Header["layout"];
}
