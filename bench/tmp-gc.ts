import { readFileSync } from "node:fs";
import { createAgentRegistry } from "dsh-agent";
import { readJsonlLog } from "dsh-log";
const gc = (globalThis as { gc?: () => void }).gc!;
const path = process.argv[2]!; const mode = process.argv[3];
function floor() { const bytes = readFileSync(path); const values: unknown[] = []; for (let start = 0; start < bytes.length; ) { const end = bytes.indexOf(10, start); if (end < 0) break; values.push(JSON.parse(bytes.toString("utf8", start, end))); start = end + 1; } return values; }
const times: number[] = [];
for (let i = 0; i < 12; i++) { gc(); const s = performance.now(); if (mode === "floor") floor(); else await readJsonlLog(path, createAgentRegistry().ignore("ui/")); times.push(performance.now() - s); }
console.log(mode, times.map((t) => t.toFixed(0)).join(" "));
