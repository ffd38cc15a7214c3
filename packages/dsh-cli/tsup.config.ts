import { defineConfig } from "tsup";

export default defineConfig({
  // `dsh web`'s page workers open the store with this module, from its own file beside the others.
  entry: ["src/index.ts", "src/bin.ts", "src/web-store.ts"],
  format: ["esm"],
  dts: { entry: "src/index.ts" },
  clean: true,
  target: "node20",
  // The stores are optional peers, loaded when a store of their kind is asked for: never bundled.
  external: ["dsh-store-sqlite", "dsh-store-postgres"],
});
