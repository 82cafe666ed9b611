/** Raw PCM16 audio and its RIFF/WAVE container. */

/** Mono little-endian PCM16: a quiet 440 Hz tone, deterministic. */
export function pcm16Tone(samples: number, sampleRate: number): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(samples * 2);
  const view = new DataView(bytes.buffer);
  const step = (2 * Math.PI * 440) / sampleRate;
  for (let i = 0; i < samples; i++) {
    view.setInt16(i * 2, Math.round(Math.sin(i * step) * 3000), true);
  }
  return bytes;
}

/** A canonical 44-byte RIFF/WAVE header (PCM, mono, 16-bit) followed by the samples. */
export function wavFile(pcm: Uint8Array, sampleRate: number): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(44 + pcm.length);
  const view = new DataView(out.buffer);
  const ascii = (offset: number, text: string) => {
    for (let i = 0; i < text.length; i++) out[offset + i] = text.charCodeAt(i);
  };
  ascii(0, "RIFF");
  view.setUint32(4, 36 + pcm.length, true);
  ascii(8, "WAVE");
  ascii(12, "fmt ");
  view.setUint32(16, 16, true); // fmt chunk size
  view.setUint16(20, 1, true); // PCM
  view.setUint16(22, 1, true); // mono
  view.setUint32(24, sampleRate, true);
  view.setUint32(28, sampleRate * 2, true); // byte rate
  view.setUint16(32, 2, true); // block align
  view.setUint16(34, 16, true); // bits per sample
  ascii(36, "data");
  view.setUint32(40, pcm.length, true);
  out.set(pcm, 44);
  return out;
}
