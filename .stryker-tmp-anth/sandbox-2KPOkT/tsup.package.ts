import { defineConfig } from "tsup";

/** The build every publishable package shares: ESM with declarations, for Node 20. */
export default defineConfig({
  entry: ["src/index.ts"],
  format: ["esm"],
  dts: true,
  clean: true,
  target: "node20",
});
