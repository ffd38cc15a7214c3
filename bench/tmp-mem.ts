import { readFileSync } from "node:fs";
const gc = (globalThis as { gc?: () => void }).gc!;
gc();
const baseHeap = process.memoryUsage().heapUsed, baseRss = process.memoryUsage().rss;
const bytes = readFileSync(process.argv[2]!);
const values: unknown[] = [];
for (let start = 0; start < bytes.length; ) { const end = bytes.indexOf(10, start); if (end < 0) break; values.push(JSON.parse(bytes.toString("utf8", start, end))); start = end + 1; }
gc();
const size = bytes.length;
console.log("floor heap kept", ((process.memoryUsage().heapUsed - baseHeap) / size).toFixed(2), "peak rss", ((process.resourceUsage().maxRSS * 1024 - baseRss) / size).toFixed(2), values.length);
