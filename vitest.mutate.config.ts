import { defineConfig } from "vitest/config";
import { sourceConditions as conditions, timeouts } from "./vitest.shared.js";

/** The vitest config of `pnpm mutate`: the one package under mutation, so only its own tests can kill its mutants. */
const name = process.env.DSH_MUTATE_PACKAGE ?? "dsh-log";

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: { ...timeouts, projects: [{ extends: true, root: `packages/${name}`, test: { name } }] },
});
