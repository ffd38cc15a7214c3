export { main } from "./main.js";
export { EXIT } from "./cli-error.js";
export type { CliIo } from "./io.js";
