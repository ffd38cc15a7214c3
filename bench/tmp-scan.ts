import { readFileSync } from "node:fs";
import { scanChunk } from "../packages/dsh-log/src/json-scan.js";
const bytes = readFileSync(process.argv[2]!);
const CLASS = new Uint8Array(256);
CLASS[0x22] = 1; CLASS[0x3a] = 3; CLASS[0x7b] = 4; CLASS[0x5b] = 4; CLASS[0x7d] = 5; CLASS[0x5d] = 5; CLASS[0x0a] = 6; CLASS[0x2c] = 7;
const INSTR = new Uint8Array(256); INSTR[0x22] = 1; INSTR[0x5c] = 2; INSTR[0x0a] = 3;
function scan2(b: Uint8Array, start: number, end: number): number {
  let lines = 1, keys = 0, depth = 0;
  for (let i = start; i < end; i++) {
    const c = CLASS[b[i]!]!;
    if (c === 0) continue;
    if (c === 1) { // string
      for (i++; i < end; i++) { const k = INSTR[b[i]!]!; if (k === 0) continue; if (k === 1) break; if (k === 2) { i++; continue; } return -1; }
      continue;
    }
    if (c === 3) keys++; else if (c === 4) depth++; else if (c === 5) depth--; else if (c === 6) { if (depth) return -1; b[i] = 0x2c; lines++; } else if (depth === 0) return -1;
  }
  return keys + lines;
}
for (let r = 0; r < 5; r++) {
  const a = Buffer.from(bytes); let s = performance.now(); scanChunk(a, bytes.indexOf(10) + 1, a.length - 1); const t1 = performance.now() - s;
  const b = Buffer.from(bytes); s = performance.now(); scan2(b, bytes.indexOf(10) + 1, b.length - 1); const t2 = performance.now() - s;
  console.log(t1.toFixed(1), t2.toFixed(1));
}
