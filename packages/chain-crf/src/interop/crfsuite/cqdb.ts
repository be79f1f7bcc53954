/**
 * CQDB, the constant quark database CRFsuite stores its label and attribute dictionaries in
 * (cqdb.c): a 24-byte header ("CQDB", chunk size, flag, byte-order mark 0x62445371, number and
 * offset of the backward links), 256 table references (offset, slot count), the records (id, key
 * size, key with its NUL), 256 open-addressed hash tables of (hash, record offset) pairs with twice
 * as many slots as records, and the backward array id → record offset. Offsets are relative to
 * the database's first byte; keys are hashed with lookup3 `hashlittle`, key bytes NUL included.
 */
import { type ByteReader, ByteWriter } from "./bytes.js";
import { hashlittle } from "./lookup3.js";

const HEADER_SIZE = 24;
const NUM_TABLES = 256;
const OFFSET_DATA = HEADER_SIZE + NUM_TABLES * 8;
const BYTEORDER_CHECK = 0x62445371;

const decoder = new TextDecoder("utf-8", { fatal: true });

/**
 * The strings of the database at `begin`, by id (0 … expected − 1), checked the way CRFsuite's
 * tagger will use them: every id has a record, every record's key is a NUL-terminated UTF-8
 * string, and every hash-table slot holds its record's hash in the table the hash selects (so a
 * name lookup finds what the backward array says). `what` names the database in messages.
 */
export function readCqdb(r: ByteReader, begin: number, expected: number, what: string): string[] {
  const at = `${what} database (CQDB at byte ${begin})`;
  if (begin <= 0 || begin >= r.length) r.fail(`${at}: offset outside the file (${r.length} bytes)`);
  r.tag(begin, "CQDB", at);
  const size = r.u32(begin + 4, `${at} size`);
  if (r.u32(begin + 12, `${at} byte order`) !== BYTEORDER_CHECK) {
    r.fail(`${at}: byte-order mark is not 0x62445371`);
  }
  if (size < OFFSET_DATA) r.fail(`${at}: size ${size} is below the minimum ${OFFSET_DATA}`);
  r.need(begin, size, at);
  const limit = begin + size;
  const bwdSize = r.u32(begin + 16, `${at} backward size`);
  const bwdOffset = r.u32(begin + 20, `${at} backward offset`);

  const decodeKey = (offset: number, slot: string): { id: number; key: Uint8Array } => {
    if (offset < OFFSET_DATA) r.fail(`${at}: ${slot} points into the header (offset ${offset})`);
    r.need(begin + offset, 8, `${at} ${slot}`, limit);
    const id = r.u32(begin + offset, `${at} ${slot}`);
    const ksize = r.u32(begin + offset + 4, `${at} ${slot}`);
    r.need(begin + offset + 8, ksize, `${at} ${slot} key`, limit);
    const key = r.bytes.subarray(begin + offset + 8, begin + offset + 8 + ksize);
    if (ksize === 0 || key[ksize - 1] !== 0 || key.indexOf(0) !== ksize - 1) {
      r.fail(`${at}: ${slot} key is not one NUL-terminated string`);
    }
    return { id, key };
  };

  let records = 0;
  for (let t = 0; t < NUM_TABLES; t++) {
    const offset = r.u32(begin + HEADER_SIZE + t * 8, `${at} table reference`);
    const slots = r.u32(begin + HEADER_SIZE + t * 8 + 4, `${at} table reference`);
    if (offset === 0) {
      if (slots !== 0) r.fail(`${at}: hash table ${t} has ${slots} slots but no offset`);
      continue;
    }
    if (slots % 2 !== 0) r.fail(`${at}: hash table ${t} has an odd slot count ${slots}`);
    r.need(begin + offset, slots * 8, `${at} hash table ${t}`, limit);
    records += slots / 2;
    let vacant = 0;
    for (let s = 0; s < slots; s++) {
      const slot = begin + offset + s * 8;
      const hash = r.u32(slot, `${at} hash table ${t}`);
      const recordOffset = r.u32(slot + 4, `${at} hash table ${t}`);
      if (recordOffset === 0) {
        vacant++;
        continue;
      }
      const { key } = decodeKey(recordOffset, `hash table ${t} slot ${s}`);
      const actual = hashlittle(key);
      // The checksum of a CQDB: a slot whose hash is not its key's (or sits in another table)
      // would make CRFsuite's tagger miss the name.
      if (actual !== hash || actual % NUM_TABLES !== t) {
        r.fail(`${at}: hash table ${t} slot ${s} has hash ${hash}, its key hashes to ${actual}`);
      }
    }
    // A full table makes CRFsuite's lookup loop forever on an absent name.
    if (vacant === 0) r.fail(`${at}: hash table ${t} has no vacant slot`);
  }
  if (records !== expected) {
    r.fail(`${at}: holds ${records} records, the model header says ${expected}`);
  }
  if (expected === 0) return [];
  if (bwdOffset === 0) r.fail(`${at}: no backward links (id → string), needed to name ids`);
  if (bwdSize < expected) r.fail(`${at}: ${bwdSize} backward links for ${expected} records`);
  r.need(begin + bwdOffset, expected * 4, `${at} backward links`, limit);
  const names: string[] = new Array(expected);
  for (let id = 0; id < expected; id++) {
    const offset = r.u32(begin + bwdOffset + id * 4, `${at} backward links`);
    const record = decodeKey(offset, `record of id ${id}`);
    if (record.id !== id) r.fail(`${at}: the record linked to id ${id} holds id ${record.id}`);
    try {
      names[id] = decoder.decode(record.key.subarray(0, record.key.length - 1));
    } catch {
      r.fail(`${at}: the string of id ${id} is not valid UTF-8`);
    }
  }
  return names;
}

/** A CQDB holding `keys[id]` for every id (each NUL-free UTF-8, checked by the caller). */
export function writeCqdb(keys: readonly Uint8Array[]): Uint8Array {
  const w = new ByteWriter();
  for (let i = 0; i < OFFSET_DATA; i++) w.raw(ZERO);
  const tables: Array<Array<[number, number]>> = Array.from({ length: NUM_TABLES }, () => []);
  const backward: number[] = new Array(keys.length);
  for (let id = 0; id < keys.length; id++) {
    const key = keys[id]!;
    const offset = w.length;
    const withNul = new Uint8Array(key.length + 1);
    withNul.set(key);
    const hash = hashlittle(withNul);
    tables[hash % NUM_TABLES]!.push([hash, offset]);
    backward[id] = offset;
    w.u32(id);
    w.u32(withNul.length);
    w.raw(withNul);
  }
  const references: Array<[number, number]> = [];
  for (const table of tables) {
    if (table.length === 0) {
      references.push([0, 0]);
      continue;
    }
    // Open addressing as cqdb_writer_close does it: twice the slots, first probe (hash >> 8) % n.
    const n = table.length * 2;
    const hashes = new Uint32Array(n);
    const offsets = new Uint32Array(n);
    for (const [hash, offset] of table) {
      let k = (hash >>> 8) % n;
      while (offsets[k] !== 0) k = (k + 1) % n;
      hashes[k] = hash;
      offsets[k] = offset;
    }
    references.push([w.length, n]);
    for (let k = 0; k < n; k++) {
      w.u32(hashes[k]!);
      w.u32(offsets[k]!);
    }
  }
  const bwdOffset = keys.length > 0 ? w.length : 0;
  for (const offset of backward) w.u32(offset);
  const size = w.length;
  w.patchU32(0, 0x42445143); // "CQDB" read as a little-endian u32
  w.patchU32(4, size);
  w.patchU32(8, 0);
  w.patchU32(12, BYTEORDER_CHECK);
  w.patchU32(16, keys.length);
  w.patchU32(20, bwdOffset);
  for (let t = 0; t < NUM_TABLES; t++) {
    w.patchU32(HEADER_SIZE + t * 8, references[t]![0]);
    w.patchU32(HEADER_SIZE + t * 8 + 4, references[t]![1]);
  }
  return w.finish();
}

const ZERO = new Uint8Array(1);
