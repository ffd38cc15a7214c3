import { configDefaults, defineConfig } from "vitest/config";
import { sourceConditions as conditions, timeouts } from "./vitest.shared.js";

/**
 * The vitest config of `pnpm mutate`: the one package under mutation, so only its own tests can kill
 * its mutants. Two suites that exist for scale and process death, not for logic, are left to `pnpm test`:
 * the 250,000-event load and the SIGKILL crash test (each mutant they cover would cost seconds).
 */
const name = process.env.DSH_MUTATE_PACKAGE ?? "dsh-log";

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: { ...timeouts, projects: [{ extends: true, root: `packages/${name}`, test: { name, exclude: [...configDefaults.exclude, "**/large.test.ts", "**/crash.test.ts"] } }] },
});
