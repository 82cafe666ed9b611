import process from "node:process";
import { parseMultipartForm as neu } from "../src/api_formats/audio/multipart.ts";
import { parseMultipartForm as old } from "/tmp/h2mp/old/multipart.ts";
const boundary = "----sovra-bench-boundary";
const enc = new TextEncoder();
function body(fileBytes: number): Uint8Array {
  const head = enc.encode(`--${boundary}\r\nContent-Disposition: form-data; name="model"\r\n\r\nacme/whisper\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\nContent-Type: audio/wav\r\n\r\n`);
  const tail = enc.encode(`\r\n--${boundary}--\r\n`);
  const file = new Uint8Array(fileBytes);
  for (let i = 0; i < file.length; i++) file[i] = (i * 2654435761) >>> 24;
  const out = new Uint8Array(head.length + file.length + tail.length);
  out.set(head); out.set(file, head.length); out.set(tail, head.length + file.length);
  return out;
}
function stream(b: Uint8Array, chunk: number) {
  let at = 0;
  return new ReadableStream<Uint8Array>({ pull(c) { if (at >= b.length) return c.close(); c.enqueue(b.subarray(at, at += chunk)); } }, { highWaterMark: 0 });
}
const ct = `multipart/form-data; boundary=${boundary}`;
const b = body(24_900_000);
const median = (xs: number[]) => xs.sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
for (const chunk of [65536, 16384, 1024]) {
  const cpu: Record<string, number[]> = { old: [], new: [] };
  for (let round = 0; round < 9; round++) {
    for (const [name, fn] of [["old", old], ["new", neu]] as const) {
      const c0 = process.cpuUsage();
      const f = await fn(stream(b, chunk), ct);
      const c = process.cpuUsage(c0);
      if (f.file!.bytes.length !== 24_900_000) throw new Error("wrong");
      if (round > 0) cpu[name]!.push((c.user + c.system) / 1000);
    }
  }
  console.log(`chunk ${chunk}: CPU ms median of 8 — hand-written ${median(cpu.old!).toFixed(0)}, remix ${median(cpu.new!).toFixed(0)}`);
}
