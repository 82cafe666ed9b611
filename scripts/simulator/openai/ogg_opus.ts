/**
 * Ogg/Opus with real page framing (CRC, granule positions) and 20 ms Opus silence packets
 * (`F8 FF FE`, CELT fullband): demuxers and duration parsers accept it.
 */

const PRE_SKIP = 312;
const PACKET = [0xf8, 0xff, 0xfe];
const PACKETS_PER_PAGE = 50; // one second per page
const SERIAL = 0x53696d31; // "Sim1"

export function oggOpusFile(samples: number, inputRate: number): Uint8Array<ArrayBuffer> {
  const head = new Uint8Array(19);
  head.set(ascii("OpusHead"));
  const headView = new DataView(head.buffer);
  head[8] = 1; // version
  head[9] = 1; // channels
  headView.setUint16(10, PRE_SKIP, true);
  headView.setUint32(12, inputRate, true);
  const vendor = ascii("sovra-simulator");
  const tags = new Uint8Array(8 + 4 + vendor.length + 4);
  tags.set(ascii("OpusTags"));
  new DataView(tags.buffer).setUint32(8, vendor.length, true);
  tags.set(vendor, 12);

  const total48k = Math.round((samples * 48000) / inputRate);
  const packets = Math.max(1, Math.ceil(total48k / 960));
  const pages = [page([head], 0n, 0, 0x02), page([tags], 0n, 1, 0)];
  for (let sent = 0, seq = 2; sent < packets; seq++) {
    const count = Math.min(PACKETS_PER_PAGE, packets - sent);
    sent += count;
    const last = sent === packets;
    const granule = BigInt(PRE_SKIP + (last ? total48k : sent * 960));
    const body = Array.from({ length: count }, () => Uint8Array.from(PACKET));
    pages.push(page(body, granule, seq, last ? 0x04 : 0));
  }
  const out = new Uint8Array(pages.reduce((sum, p) => sum + p.length, 0));
  let offset = 0;
  for (const p of pages) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}

/** One Ogg page holding whole packets (each shorter than 255 bytes). */
function page(
  packets: Uint8Array[],
  granule: bigint,
  sequence: number,
  flags: number,
): Uint8Array<ArrayBuffer> {
  const lacing = packets.flatMap((p) => segments(p.length));
  const dataLength = packets.reduce((sum, p) => sum + p.length, 0);
  const out = new Uint8Array(27 + lacing.length + dataLength);
  const view = new DataView(out.buffer);
  out.set(ascii("OggS"));
  out[5] = flags;
  view.setBigInt64(6, granule, true);
  view.setUint32(14, SERIAL, true);
  view.setUint32(18, sequence, true);
  out[26] = lacing.length;
  out.set(lacing, 27);
  let offset = 27 + lacing.length;
  for (const p of packets) {
    out.set(p, offset);
    offset += p.length;
  }
  view.setUint32(22, oggCrc(out), true);
  return out;
}

function segments(length: number): number[] {
  const out = Array.from({ length: Math.floor(length / 255) }, () => 255);
  out.push(length % 255);
  return out;
}

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let r = i << 24;
    for (let j = 0; j < 8; j++) r = r & 0x80000000 ? (r << 1) ^ 0x04c11db7 : r << 1;
    table[i] = r >>> 0;
  }
  return table;
})();

function oggCrc(bytes: Uint8Array): number {
  let crc = 0;
  for (const b of bytes) crc = ((crc << 8) ^ (CRC_TABLE[((crc >>> 24) ^ b) & 0xff] ?? 0)) >>> 0;
  return crc;
}

function ascii(text: string): Uint8Array<ArrayBuffer> {
  return Uint8Array.from(text, (c) => c.charCodeAt(0));
}
