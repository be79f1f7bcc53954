import { inflateRawSync } from "node:zlib";

/**
 * Extracts one member of a zip archive held in memory. Only what NLTK's archives need: stored or
 * deflated members, no ZIP64, no encryption. Written by hand to keep the package free of
 * runtime dependencies; node:zlib does the inflating.
 */
export function extractZipMember(archive: Uint8Array, member: string, source: string): Buffer {
  const buf = Buffer.from(archive.buffer, archive.byteOffset, archive.byteLength);
  const eocd = findEndOfCentralDirectory(buf, source);
  const entries = buf.readUInt16LE(eocd + 10);
  let offset = buf.readUInt32LE(eocd + 16);
  for (let i = 0; i < entries; i++) {
    if (offset + 46 > buf.length || buf.readUInt32LE(offset) !== 0x02014b50) {
      throw new Error(`${source}: malformed zip central directory at byte ${offset}`);
    }
    const method = buf.readUInt16LE(offset + 10);
    const compressedSize = buf.readUInt32LE(offset + 20);
    const size = buf.readUInt32LE(offset + 24);
    const nameLength = buf.readUInt16LE(offset + 28);
    const extraLength = buf.readUInt16LE(offset + 30);
    const commentLength = buf.readUInt16LE(offset + 32);
    const localOffset = buf.readUInt32LE(offset + 42);
    const name = buf.toString("utf8", offset + 46, offset + 46 + nameLength);
    offset += 46 + nameLength + extraLength + commentLength;
    if (name !== member) continue;
    if (localOffset + 30 > buf.length || buf.readUInt32LE(localOffset) !== 0x04034b50) {
      throw new Error(`${source}: malformed zip local header for ${member}`);
    }
    const dataStart =
      localOffset + 30 + buf.readUInt16LE(localOffset + 26) + buf.readUInt16LE(localOffset + 28);
    if (dataStart + compressedSize > buf.length) {
      throw new Error(`${source}: zip member ${member} runs past the end of the archive`);
    }
    const data = buf.subarray(dataStart, dataStart + compressedSize);
    let out: Buffer;
    if (method === 0) out = Buffer.from(data);
    else if (method === 8) out = inflateRawSync(data);
    else throw new Error(`${source}: zip member ${member} uses unsupported method ${method}`);
    if (out.length !== size) {
      throw new Error(
        `${source}: zip member ${member} inflated to ${out.length} bytes, expected ${size}`,
      );
    }
    return out;
  }
  throw new Error(`${source}: zip archive has no member ${member}`);
}

function findEndOfCentralDirectory(buf: Buffer, source: string): number {
  const earliest = Math.max(0, buf.length - 22 - 0xffff);
  for (let i = buf.length - 22; i >= earliest; i--) {
    if (buf.readUInt32LE(i) === 0x06054b50) return i;
  }
  throw new Error(`${source}: not a zip archive (no end-of-central-directory record)`);
}
