import { defineConfig } from "vitest/config";

/** The vitest config of `pnpm mutate`: the one package under mutation, so only its own tests can kill its mutants. */
const name = process.env.DSH_MUTATE_PACKAGE ?? "dsh-log";

export default defineConfig({
  test: {
    testTimeout: 120_000,
    hookTimeout: 120_000,
    projects: [{ extends: true, root: `packages/${name}`, test: { name } }],
  },
});
