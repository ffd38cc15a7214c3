import { readdirSync } from "node:fs";
import { defineConfig } from "vitest/config";

const packages = readdirSync(new URL("./packages", import.meta.url), { withFileTypes: true }).filter((entry) => entry.isDirectory());

export default defineConfig({
  test: {
    // Generous limits: tests must not depend on wall-clock speed, and CI machines are loaded.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    projects: packages.map(({ name }) => ({ extends: true, root: `packages/${name}`, test: { name } })),
  },
});
