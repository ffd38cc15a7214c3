import { loadBench } from "./load.js";
console.log(await loadBench(process.argv[2]!, Number(process.argv[3] ?? 7)));
