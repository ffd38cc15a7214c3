import { defineConfig } from "tsup";

// Two builds: the Node library (as every package), and the browser app bundled whole (preact included) into dist/app.js.
export default defineConfig([
  { entry: ["src/index.ts"], format: ["esm"], dts: true, clean: true, target: "node20" },
  {
    entry: { app: "src/app/main.tsx" },
    format: ["esm"],
    platform: "browser",
    target: "es2022",
    minify: true,
    noExternal: [/.*/],
    esbuildOptions(options) {
      options.jsx = "automatic";
      options.jsxImportSource = "preact";
    },
  },
]);
