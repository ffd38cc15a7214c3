import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { createAgentRegistry } from "dsh-agent";
import { EventLog, parseJsonl, readJsonlLog } from "dsh-log";
const path = process.argv[2]!;
const t = (label: string, fn: () => unknown) => { const s = performance.now(); const v = fn(); console.log(label, (performance.now() - s).toFixed(0), "ms"); return v; };
for (let round = 0; round < 2; round++) {
  const bytes = t("read", () => readFileSync(path)) as Buffer;
  t("floor split+parse", () => { const out: unknown[] = []; let start = 0; for (;;) { const end = bytes.indexOf(10, start); if (end < 0) break; out.push(JSON.parse(bytes.toString("utf8", start, end))); start = end + 1; } return out; });
  const parsed = t("parseJsonl", () => parseJsonl(bytes)) as ReturnType<typeof parseJsonl>;
  t("EventLog admit", () => new EventLog({ registry: createAgentRegistry().ignore("ui/"), events: parsed.events }));
  const s = performance.now(); await readJsonlLog(path, createAgentRegistry().ignore("ui/")); console.log("readJsonlLog total", (performance.now() - s).toFixed(0));
}
