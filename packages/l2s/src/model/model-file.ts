import { type JsonValue, LagrangeError } from "@lagrange/core";
import { crc32, formatByteSize } from "@lagrange/core/bytes";
import { type LearnerState, learnerFromState } from "../learner/base-learner.js";
import { strideOf } from "../learner/cost-sensitive.js";
import { LearnedPolicy } from "../search/policy.js";
import type { ActionSpace } from "../search/types.js";

/**
 * A trained learning-to-search model: the task it was trained for (`sequence-labelling`,
 * `arc-hybrid-parser`, …), what the task needs to be rebuilt (labels, feature preset, scheme,
 * relations: `settings`), and the learned policy.
 */
export interface L2sModel {
  readonly task: string;
  readonly settings: { readonly [key: string]: JsonValue };
  readonly policy: LearnedPolicy;
}

/**
 * File layout (little-endian), as chain-crf's model files:
 *   0   8 bytes  magic "LGRL2S\r\n"
 *   8   u32      format version
 *   12  u32      header length H
 *   16  H bytes  UTF-8 JSON header, space-padded to a multiple of 8
 *   16+H         each learner's float32 weight table, in order: dense (every slot), or sparse
 *                (u32 slot indices, then their float32 values) when fewer than half the slots are
 *                non-zero — a hashed table of 2^22 slots is mostly empty
 *   end−4 u32    CRC-32 of every preceding byte
 */
export const L2S_MODEL_VERSION = 1;
const MAGIC = [0x4c, 0x47, 0x52, 0x4c, 0x32, 0x53, 0x0d, 0x0a]; // "LGRL2S\r\n"
const PREAMBLE = 16;

/** A model file that cannot be read, naming the file and what is wrong with it. */
export class L2sModelFileError extends LagrangeError {
  override readonly name = "L2sModelFileError";
  constructor(
    readonly file: string,
    readonly reason: string,
  ) {
    super("bad-input", `${file}: ${reason}`);
  }
}

type LearnerHeader = Omit<LearnerState, "weights"> & {
  readonly weightCount: number;
  /** Non-zero slots stored as (index, value) pairs; absent: the table is stored dense. */
  readonly sparse?: number;
};

function nonZeros(weights: Float32Array): number {
  let count = 0;
  for (let k = 0; k < weights.length; k++) if (weights[k] !== 0) count++;
  return count;
}

interface Header {
  readonly format: "lagrange-l2s";
  readonly task: string;
  readonly settings: { readonly [key: string]: JsonValue };
  readonly actionSpaces: readonly ActionSpace[];
  readonly learners: readonly LearnerHeader[];
}

export function l2sModelToBytes(model: L2sModel): Uint8Array {
  const states = model.policy.learners.map((l) => l.exportState());
  let sparseSlots = 0;
  const header: Header = {
    format: "lagrange-l2s",
    task: model.task,
    settings: model.settings,
    actionSpaces: model.policy.actionSpaces.map((s) => ({ name: s.name, actions: s.actions })),
    learners: states.map(({ weights, ...rest }) => {
      const stored = nonZeros(weights);
      // Sparse only within the readers' bound on sparse tables: a larger table is stored dense,
      // so that its file holds (and the reader can check) every slot it will allocate.
      if (2 * stored < weights.length && sparseSlots + weights.length <= MAX_SPARSE_SLOTS) {
        sparseSlots += weights.length;
        return { ...rest, weightCount: weights.length, sparse: stored };
      }
      return { ...rest, weightCount: weights.length };
    }),
  };
  let json = new TextEncoder().encode(JSON.stringify(header));
  const padded = Math.ceil(json.length / 8) * 8;
  if (padded !== json.length) {
    const bytes = new Uint8Array(padded).fill(0x20);
    bytes.set(json);
    json = bytes;
  }
  const weightBytes = header.learners.reduce(
    (sum, l) => sum + (l.sparse === undefined ? 4 * l.weightCount : 8 * l.sparse),
    0,
  );
  const out = new Uint8Array(PREAMBLE + json.length + weightBytes + 4);
  const view = new DataView(out.buffer);
  out.set(MAGIC, 0);
  view.setUint32(8, L2S_MODEL_VERSION, true);
  view.setUint32(12, json.length, true);
  out.set(json, PREAMBLE);
  let offset = PREAMBLE + json.length;
  states.forEach(({ weights }, l) => {
    const sparse = header.learners[l]!.sparse;
    if (sparse === undefined) {
      for (let k = 0; k < weights.length; k++) view.setFloat32(offset + 4 * k, weights[k]!, true);
      offset += weights.byteLength;
      return;
    }
    let j = 0;
    for (let k = 0; k < weights.length; k++) {
      if (weights[k] === 0) continue;
      view.setUint32(offset + 4 * j, k, true);
      view.setFloat32(offset + 4 * (sparse + j), weights[k]!, true);
      j++;
    }
    offset += 8 * sparse;
  });
  view.setUint32(offset, crc32(out, 0, offset), true);
  return out;
}

/**
 * The most weights a file's sparse tables may declare in all (2^26, 268 MB as float32). A sparse
 * table's size is not proportional to its file (2^30 empty slots take 0 bytes), so it gets a fixed
 * bound; the writer stores a table dense when it would pass it, so every model this package writes
 * is read back (csoaa up to --bits 24 and the perceptron up to 26 stay sparse).
 */
export const MAX_SPARSE_SLOTS = 2 ** 26;

/** Weights per table entry: 1 for the perceptron, 1–3 for csoaa (weight, Σg², max |x|). */
function slotsPerEntry(learner: LearnerHeader, fail: (reason: string) => never): number {
  const header = learner as unknown as { readonly [key: string]: unknown };
  if (header.format === "l2s-perceptron") return 1;
  if (header.format !== "l2s-csoaa") {
    return fail(`format ${describe(header.format)}: expected "l2s-csoaa" or "l2s-perceptron"`);
  }
  const { adaptive, normalized } = header;
  if (typeof adaptive !== "boolean" || typeof normalized !== "boolean") {
    return fail("csoaa learner without its adaptive and normalized flags");
  }
  return strideOf(adaptive, normalized);
}

function describe(x: unknown): string {
  return typeof x === "number" ? String(x) : (JSON.stringify(x) ?? String(x));
}

export function l2sModelFromBytes(bytes: Uint8Array, file = "<model>"): L2sModel {
  const fail = (reason: string): never => {
    throw new L2sModelFileError(file, reason);
  };
  if (bytes.length < PREAMBLE + 4 || MAGIC.some((b, k) => bytes[k] !== b)) {
    fail('not a learning-to-search model file (expected the magic "LGRL2S")');
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = view.getUint32(8, true);
  if (version !== L2S_MODEL_VERSION) {
    fail(`format version ${version}: this build reads version ${L2S_MODEL_VERSION}`);
  }
  const end = bytes.length - 4;
  if (crc32(bytes, 0, end) !== view.getUint32(end, true)) {
    fail("checksum mismatch: the file is truncated or corrupted");
  }
  const headerLength = view.getUint32(12, true);
  if (PREAMBLE + headerLength > end) fail(`header length ${headerLength} runs past the file's end`);
  let header: Header;
  try {
    header = JSON.parse(
      new TextDecoder().decode(bytes.subarray(PREAMBLE, PREAMBLE + headerLength)),
    );
  } catch (error) {
    return fail(`header is not JSON (${(error as Error).message})`);
  }
  if (header?.format !== "lagrange-l2s") fail('header: expected format "lagrange-l2s"');
  if (typeof header.task !== "string") fail("header: expected a task name");
  if (!Array.isArray(header.actionSpaces) || !Array.isArray(header.learners)) {
    fail("header: expected actionSpaces and learners lists");
  }
  if (header.actionSpaces.length !== header.learners.length) {
    fail("header: expected one learner per action space");
  }
  if (
    typeof header.settings !== "object" ||
    header.settings === null ||
    Array.isArray(header.settings)
  ) {
    fail("header: expected settings to be an object");
  }
  // Every table's declared size is checked against the bytes present (dense) or the bound on
  // sparse tables before any table is allocated: a crafted header with a valid checksum ends here.
  let offset = PREAMBLE + headerLength;
  let sparseSlots = 0;
  const tables = header.learners.map((learner, k) => {
    if (typeof learner !== "object" || learner === null) fail(`learner ${k}: expected an object`);
    const bits = learner.bits;
    if (!Number.isInteger(bits) || bits < 1 || bits > 30) {
      fail(`learner ${k}: bits ${describe(bits)}: expected an integer in 1…30`);
    }
    const slots = slotsPerEntry(learner, (reason) => fail(`learner ${k}: ${reason}`));
    const count = learner.weightCount;
    const expected = slots * 2 ** bits;
    if (count !== expected) {
      fail(
        `learner ${k}: weightCount ${describe(count)}; a ${learner.format} table of 2^${bits} entries holds ${expected} weights`,
      );
    }
    const sparse = learner.sparse;
    if (sparse !== undefined && !(Number.isInteger(sparse) && sparse >= 0 && sparse <= count)) {
      fail(`learner ${k}: sparse ${describe(sparse)}: expected an integer in 0…${count}`);
    }
    const bytes = sparse === undefined ? 4 * count : 8 * sparse;
    if (offset + bytes > end) {
      fail(
        `learner ${k}: its weight table declares ${sparse === undefined ? `${count} weights` : `${sparse} stored weights`} (${formatByteSize(bytes)}) but the file has ${formatByteSize(Math.max(0, end - offset))} left`,
      );
    }
    if (sparse !== undefined) {
      sparseSlots += count;
      if (sparseSlots > MAX_SPARSE_SLOTS) {
        fail(
          `learner ${k}: sparse weight tables of ${sparseSlots} weights in all (${formatByteSize(4 * sparseSlots)} once loaded) from ${formatByteSize(end - PREAMBLE - headerLength)} of weights; sparse tables are limited to ${MAX_SPARSE_SLOTS} weights (${formatByteSize(4 * MAX_SPARSE_SLOTS)}), larger ones are written dense`,
        );
      }
    }
    const at = offset;
    offset += bytes;
    return { at, count, sparse };
  });
  if (offset !== end) fail(`${end - offset} bytes after the last weight table`);
  const learners = header.learners.map((learner, k) => {
    const { at: offset, count, sparse } = tables[k]!;
    const weights = new Float32Array(count);
    if (sparse === undefined) {
      for (let i = 0; i < count; i++) weights[i] = view.getFloat32(offset + 4 * i, true);
    } else {
      let previous = -1;
      for (let j = 0; j < sparse; j++) {
        const index = view.getUint32(offset + 4 * j, true);
        if (index <= previous || index >= count) {
          fail(
            `learner ${k}: sparse slot ${j} has index ${index}; expected increasing indices below ${count}`,
          );
        }
        previous = index;
        weights[index] = view.getFloat32(offset + 4 * (sparse + j), true);
      }
    }
    const { weightCount: _, sparse: __, ...rest } = learner;
    try {
      return learnerFromState({ ...rest, weights } as LearnerState);
    } catch (error) {
      return fail(`learner ${k}: ${(error as Error).message}`);
    }
  });
  let policy: LearnedPolicy;
  try {
    policy = new LearnedPolicy(header.actionSpaces, learners);
  } catch (error) {
    return fail((error as Error).message);
  }
  return { task: header.task, settings: header.settings, policy };
}

/** Whether bytes start like a learning-to-search model file (to tell it from a CRF model). */
export function isL2sModelFile(bytes: Uint8Array): boolean {
  return bytes.length >= MAGIC.length && MAGIC.every((b, k) => bytes[k] === b);
}
