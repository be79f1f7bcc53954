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
/** The features this build reads, each what a reader without it would tag wrongly. */
const MODEL_FEATURES = ["first-stage", "second-order", "general-crf", "constraints"] as const;
type ModelFeature = CrfModel["features"][number];
/** Where a file holds each feature's part of the model. */
const FEATURE_PARTS: Record<ModelFeature, string> = {
  "first-stage": "firstStage section",
  "second-order": "trigrams section",
  "general-crf": "generalCrf field",
  constraints: "learnedConstraints field",
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

export type WeightPrecision = "float32" | "float64";

export interface SaveOptions {
  /**
   * float32 (default) halves the file; a CRF's weights need far fewer than 7 significant digits
   * (the optimiser stops long before), so decoding is unchanged in practice. float64 reproduces
   * the in-memory model bit for bit (to resume training or compare exactly).
   */
  readonly precision?: WeightPrecision;
}

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
  readonly type: "int32" | "float32" | "float64" | "uint8";
  readonly length: number;
  /** Byte offset from the start of the binary part. */
  readonly offset: number;
}

type Settings = { readonly [key: string]: JsonValue };

/** A format 4 header; versions 1 to 3 have `format` instead of `kind` and `features`. */
interface Header {
  readonly kind: typeof MODEL_KIND;
  readonly features: ModelFeature[];
  readonly labels: string[];
  readonly attributes: string[];
  readonly transitionAttributes: string[];
  readonly preset: string | null;
  readonly scheme?: string;
  readonly taskPreset?: string;
  readonly decoder?: string;
  readonly generalCrf?: JsonValue;
  readonly learnedConstraints?: JsonValue;
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

const ELEMENT_SIZE = { int32: 4, float32: 4, float64: 8, uint8: 1 } as const;

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
  const { layout } = model;
  const arrays: Array<[string, SectionEntry["type"], ArrayLike<number>]> = [
    ["attributeOffsets", "int32", layout.attributeOffsets],
    ["featureLabels", "int32", layout.featureLabels],
    ["transitionAttributeOffsets", "int32", layout.transitionAttributeOffsets],
    ["transitionFeaturePairs", "int32", layout.transitionFeaturePairs],
    ["weights", precision, model.weights],
  ];
  if (model.firstStage !== null) arrays.push(["firstStage", "uint8", model.firstStage]);
  if (model.trigrams !== null) arrays.push(["trigrams", precision, model.trigrams]);
  const sections: SectionEntry[] = [];
  let offset = 0;
  for (const [name, type, data] of arrays) {
    sections.push({ name, type, length: data.length, offset });
    offset = align8(offset + data.length * ELEMENT_SIZE[type]);
  }
  const { settings, record } = splitRecord(model.settings);
  const header: Header = {
    kind: MODEL_KIND,
    features: [...model.features],
    labels: [...model.labels.names()],
    attributes: [...model.attributes.names()],
    transitionAttributes: [...model.transitionAttributes.names()],
    preset: model.preset,
    ...record,
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
      if (type === "int32") view.setInt32(base + 4 * k, x, true);
      else if (type === "float32") view.setFloat32(base + 4 * k, x, true);
      else view.setFloat64(base + 8 * k, x, true);
    }
  }
  view.setUint32(total - 4, crc32(bytes, 0, total - 4), true);
  return bytes;
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
  const features = legacy
    ? legacyFeatures(version, hasFirstStage)
    : declaredFeatures(header.features, fail);
  const requireAgreement = (feature: ModelFeature, present: boolean) => {
    if (present === features.has(feature)) return;
    const claim = legacy
      ? `a version ${version} file has ${present ? "no " : ""}feature ${feature}`
      : `the header's features ${present ? "do not list" : "list"} ${feature}`;
    fail(`${present ? "a" : "no"} ${FEATURE_PARTS[feature]}, but ${claim}`);
  };
  requireAgreement("first-stage", hasFirstStage);
  requireAgreement("second-order", hasTrigrams);
  if (!legacy) {
    requireAgreement("general-crf", header.generalCrf !== undefined);
    requireAgreement("constraints", header.learnedConstraints !== undefined);
  }
  // Every declared length and offset is checked against the bytes present before anything is
  // allocated: a crafted header (valid checksum, a length of 2^32 or −1) is a malformed file,
  // never a 12 GB allocation or "Invalid typed array length".
  const section = (name: string, types: readonly SectionEntry["type"][]): SectionEntry =>
    checkedSection(header.sections, name, types, binaryLength, fail);
  const readInt32 = (name: string): Int32Array => {
    const { length, offset } = section(name, ["int32"]);
    const out = new Int32Array(length);
    const base = binaryStart + offset;
    for (let k = 0; k < length; k++) out[k] = view.getInt32(base + 4 * k, true);
    return out;
  };
  const readWeights = (name: string, what: string): Float64Array => {
    const w = section(name, ["float32", "float64"]);
    const out = new Float64Array(w.length);
    const wBase = binaryStart + w.offset;
    const width = ELEMENT_SIZE[w.type];
    for (let k = 0; k < w.length; k++) {
      const x =
        w.type === "float32"
          ? view.getFloat32(wBase + 4 * k, true)
          : view.getFloat64(wBase + 8 * k, true);
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
  const layout: FeatureLayout = {
    numLabels: h.numLabels,
    numAttributes: h.numAttributes,
    attributeOffsets: readInt32("attributeOffsets"),
    featureLabels: readInt32("featureLabels"),
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
): ReadonlySet<ModelFeature> {
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
  return new Set(value as ModelFeature[]);
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
