import { fileURLToPath } from "node:url";
import type { McpServerSpec } from "../connection.js";

/** The spec that starts the test server over stdio, as a child process. */
export function stdioSpec(extra: Partial<McpServerSpec> = {}): McpServerSpec {
  return {
    command: process.execPath,
    args: ["--import", import.meta.resolve("tsx"), fileURLToPath(new URL("./serve-stdio.ts", import.meta.url))],
    ...extra,
  };
}
