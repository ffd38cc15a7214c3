// @ts-check
/** Stryker over one package's sources (DSH_MUTATE_PACKAGE), killed by that package's own tests. */
const name = process.env.DSH_MUTATE_PACKAGE ?? "dsh-log";

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: "vitest",
  plugins: ["@stryker-mutator/vitest-runner"],
  vitest: { configFile: "vitest.mutate.config.ts" },
  // The web app's browser code (src/app) is pinned by the Chromium tests in dsh-cli, which a package's run does not include.
  mutate: [`packages/${name}/src/**/*.ts`, "!**/*.test.ts", "!**/test-support/**", "!**/index.ts", "!**/src/app/**"],
  coverageAnalysis: "perTest",
  concurrency: 2,
  timeoutMS: 15_000,
  reporters: ["clear-text", "progress", "json"],
  jsonReporter: { fileName: `reports/mutation/${name}.json` },
  tempDirName: ".stryker-tmp",
  cleanTempDir: "always",
  ignoreStatic: true,
  // vitest does not type-check; and the README examples must stay byte-identical to examples/*.ts.
  disableTypeChecks: false,
};
