import { readFile } from "node:fs/promises";

/**
 * Whether the package README at `packageRoot` shows `examples/<name>.ts` verbatim in a ```ts block,
 * so the example a reader copies is the one the tests run.
 */
export async function readmeShowsExample(packageRoot: URL, name = "quickstart"): Promise<boolean> {
  const readme = await readFile(new URL("README.md", packageRoot), "utf8");
  const example = await readFile(new URL(`examples/${name}.ts`, packageRoot), "utf8");
  return readme.includes("```ts\n" + example + "```");
}

/** Runs `fn` with `console.log` captured; returns its result and the printed lines. */
export async function captureLog<T>(fn: () => Promise<T>): Promise<{ result: T; lines: string[] }> {
  const lines: string[] = [];
  const original = console.log;
  console.log = (...args: unknown[]) => {
    lines.push(args.map((arg) => (typeof arg === "string" ? arg : JSON.stringify(arg))).join(" "));
  };
  try {
    return { result: await fn(), lines };
  } finally {
    console.log = original;
  }
}
