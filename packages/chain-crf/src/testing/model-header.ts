// Test support (not exported): a model file's JSON header, read and rewritten with a valid CRC.
import { crc32 } from "@lagrange/core/bytes";

// biome-ignore lint/suspicious/noExplicitAny: a crafted header holds whatever a test puts in it
export type Header = any;

/** The JSON header of a model file. */
export function headerOf(bytes: Uint8Array): Header {
  const headerLength = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(
    12,
    true,
  );
  return JSON.parse(new TextDecoder().decode(bytes.subarray(16, 16 + headerLength)));
}

/** The file with its JSON header edited and its checksum recomputed: only the reader's checks stop it. */
export function withHeader(bytes: Uint8Array, edit: (header: Header) => void): Uint8Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerLength = view.getUint32(12, true);
  const header = headerOf(bytes);
  edit(header);
  const json = new TextEncoder().encode(JSON.stringify(header));
  const padded = Math.ceil((16 + json.length) / 8) * 8 - 16;
  const binary = bytes.subarray(16 + headerLength, bytes.length - 4);
  const out = new Uint8Array(16 + padded + binary.length + 4).fill(0x20);
  out.set(bytes.subarray(0, 12));
  const outView = new DataView(out.buffer);
  outView.setUint32(12, padded, true);
  out.set(json, 16);
  out.set(binary, 16 + padded);
  outView.setUint32(out.length - 4, crc32(out, 0, out.length - 4), true);
  return out;
}
