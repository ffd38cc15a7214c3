/**
 * How vitest resolves the workspace packages: the `dsh-source` export condition points each at its
 * sources, so tests run without a build. Published manifests drop it (package.json `publishConfig`).
 * No `module` condition: dependencies resolve as Node resolves them for users (the OpenTelemetry API's
 * `module` build imports paths without extensions, which only a bundler can load).
 */
export const sourceConditions = ["dsh-source", "node", "development|production"];

/** Generous limits: tests must not depend on wall-clock speed, and CI machines are loaded. */
export const timeouts = { testTimeout: 120_000, hookTimeout: 120_000 };
