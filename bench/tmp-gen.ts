import { writeBenchLog } from "./reconstruct.js";
await writeBenchLog(process.argv[2]!, Number(process.argv[3]), 95);
