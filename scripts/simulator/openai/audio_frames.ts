/**
 * Silent but well-formed compressed audio: MPEG-2 Layer III frames, AAC ADTS frames and a FLAC
 * stream of constant subframes. Not an encoder; enough for format sniffing and duration
 * parsing (frame counts, STREAMINFO).
 */

/** MPEG-2 Layer III, 64 kbit/s, mono, 576 samples per frame; zero side info decodes as silence. */
export function mp3Frames(samples: number, sampleRate: 24000 | 16000): Uint8Array<ArrayBuffer> {
  const frameBytes = (72 * 64000) / sampleRate; // 192 or 288
  const frames = Math.max(1, Math.ceil(samples / 576));
  const out = new Uint8Array(frames * frameBytes);
  const rateBits = sampleRate === 24000 ? 0x84 : 0x88; // bitrate index 8, rate index 1 or 2
  for (let f = 0; f < frames; f++) out.set([0xff, 0xf3, rateBits, 0xc0], f * frameBytes);
  return out;
}

/** AAC-LC ADTS frames (1024 samples each), each carrying one empty mono element. */
export function aacFrames(samples: number, sampleRate: 24000 | 16000): Uint8Array<ArrayBuffer> {
  const payload = [0x00, 0x00, 0x00, 0x07]; // SCE, global gain 0, max_sfb 0, then END
  const length = 7 + payload.length;
  const frames = Math.max(1, Math.ceil(samples / 1024));
  const rateIndex = sampleRate === 24000 ? 6 : 8;
  const header = [
    0xff,
    0xf1, // MPEG-4, no CRC
    (1 << 6) | (rateIndex << 2), // AAC LC
    (1 << 6) | ((length >> 11) & 0x03), // mono
    (length >> 3) & 0xff,
    ((length & 0x07) << 5) | 0x1f,
    0xfc,
  ];
  const out = new Uint8Array(frames * length);
  for (let f = 0; f < frames; f++) out.set([...header, ...payload], f * length);
  return out;
}

/** FLAC: `fLaC`, STREAMINFO, then frames of 4096 samples with a CONSTANT (silent) subframe. */
export function flacFile(samples: number, sampleRate: 24000 | 16000): Uint8Array<ArrayBuffer> {
  const block = 4096;
  const parts: number[] = [0x66, 0x4c, 0x61, 0x43, 0x80, 0x00, 0x00, 34];
  parts.push(block >> 8, block & 0xff, block >> 8, block & 0xff); // min/max block size
  parts.push(0, 0, 0, 0, 0, 0); // min/max frame size unknown
  // 20 bits sample rate, 3 bits channels-1, 5 bits bps-1, 36 bits total samples
  const packed = (BigInt(sampleRate) << 44n) | (0n << 41n) | (15n << 36n) | BigInt(samples);
  for (let shift = 56n; shift >= 0n; shift -= 8n) parts.push(Number((packed >> shift) & 0xffn));
  for (let i = 0; i < 16; i++) parts.push(0); // MD5 unknown
  const rateCode = sampleRate === 24000 ? 0x07 : 0x05;
  for (let frame = 0, done = 0; done < samples; frame++, done += block) {
    const size = Math.min(block, samples - done);
    const head = [0xff, 0xf8, (0x07 << 4) | rateCode, 0x08, ...utf8Number(frame)];
    head.push((size - 1) >> 8, (size - 1) & 0xff);
    head.push(crc8(head));
    const frameBytes = [...head, 0x00, 0x00, 0x00]; // CONSTANT subframe, value 0 (16 bits)
    const crc = crc16(frameBytes);
    parts.push(...frameBytes, crc >> 8, crc & 0xff);
  }
  return Uint8Array.from(parts);
}

/** FLAC's UTF-8-like coding of frame numbers. */
function utf8Number(n: number): number[] {
  if (n < 0x80) return [n];
  if (n < 0x800) return [0xc0 | (n >> 6), 0x80 | (n & 0x3f)];
  if (n < 0x10000) return [0xe0 | (n >> 12), 0x80 | ((n >> 6) & 0x3f), 0x80 | (n & 0x3f)];
  return [0xf0 | (n >> 18), 0x80 | ((n >> 12) & 0x3f), 0x80 | ((n >> 6) & 0x3f), 0x80 | (n & 0x3f)];
}

function crc8(bytes: readonly number[]): number {
  let crc = 0;
  for (const b of bytes) {
    crc ^= b;
    for (let i = 0; i < 8; i++) crc = crc & 0x80 ? ((crc << 1) ^ 0x07) & 0xff : (crc << 1) & 0xff;
  }
  return crc;
}

function crc16(bytes: readonly number[]): number {
  let crc = 0;
  for (const b of bytes) {
    crc ^= b << 8;
    for (let i = 0; i < 8; i++) {
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x8005) & 0xffff : (crc << 1) & 0xffff;
    }
  }
  return crc;
}
