import { readdirSync } from "node:fs";
import { defineConfig } from "vitest/config";
import { sourceConditions as conditions, timeouts } from "./vitest.shared.js";

const packages = readdirSync(new URL("./packages", import.meta.url), { withFileTypes: true }).filter((entry) => entry.isDirectory());

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    ...timeouts,
    projects: packages.map(({ name }) => ({ extends: true, root: `packages/${name}`, test: { name } })),
  },
});
