import { defineConfig } from "tsup";

export default defineConfig({
  // The page builder runs in child processes of `dsh web`, from its own file beside the others.
  entry: ["src/index.ts", "src/bin.ts", "src/page-builder.ts"],
  format: ["esm"],
  dts: { entry: "src/index.ts" },
  clean: true,
  target: "node20",
  // The stores are optional peers, loaded when a store of their kind is asked for: never bundled.
  external: ["dsh-store-sqlite", "dsh-store-postgres"],
});
