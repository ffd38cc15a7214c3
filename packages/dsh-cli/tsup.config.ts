import { defineConfig } from "tsup";

export default defineConfig({
  entry: ["src/index.ts", "src/bin.ts"],
  format: ["esm"],
  dts: { entry: "src/index.ts" },
  clean: true,
  target: "node20",
  // The stores are optional peers, loaded when a store of their kind is asked for: never bundled.
  external: ["dsh-store-sqlite", "dsh-store-postgres"],
});
