import { defineConfig } from "tsup";
import shared from "../../tsup.package.js";

export default defineConfig({ ...shared, entry: ["src/index.ts", "src/vitest.ts"], external: ["vitest"] });
