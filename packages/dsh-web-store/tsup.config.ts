import { defineConfig } from "tsup";

export default defineConfig({
  // A PagePool's children run the worker from its own file beside the others.
  entry: ["src/index.ts", "src/page-worker.ts"],
  format: ["esm"],
  dts: { entry: "src/index.ts" },
  clean: true,
  target: "node20",
});
