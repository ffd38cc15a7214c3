import { createAgentRegistry } from "dsh-agent";
import { readJsonlLog } from "dsh-log";
for (let i = 0; i < 12; i++) { const s = performance.now(); await readJsonlLog(process.argv[2]!, createAgentRegistry().ignore("ui/")); console.log((performance.now() - s).toFixed(0)); }
