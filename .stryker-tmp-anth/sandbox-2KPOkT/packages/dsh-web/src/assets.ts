import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";

let bundle: Promise<string> | undefined;

/**
 * The browser app as one script: `app.js` beside this module in a built package; from source (this
 * repository), bundled on first use with esbuild. Read once per process.
 */
export function appScript(): Promise<string> {
  bundle ??= load();
  return bundle;
}

async function load(): Promise<string> {
  const built = new URL("./app.js", import.meta.url);
  if (existsSync(built)) return readFile(built, "utf8");
  // Only this repository builds from source; the name is not a literal so no bundler follows it into a built package.
  const bundler = "esbuild";
  const { build } = (await import(bundler)) as typeof import("esbuild");
  const result = await build({
    entryPoints: [fileURLToPath(new URL("./app/main.tsx", import.meta.url))],
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    minify: true,
    jsx: "automatic",
    jsxImportSource: "preact",
    write: false,
    logLevel: "silent",
  });
  return result.outputFiles[0]!.text;
}
