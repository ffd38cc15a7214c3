import { readFile } from "node:fs/promises";

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

/** The names a README's `## <heading>` table lists in its first column (backticked, calls and generics stripped). */
export async function readmeApiNames(packageRoot: URL, heading = "API"): Promise<string[]> {
  const readme = await readFile(new URL("README.md", packageRoot), "utf8");
  const section = readme.split(`\n## ${heading}\n`)[1]?.split(/^## /m)[0] ?? "";
  const names = new Set<string>();
  for (const line of section.split("\n")) {
    if (!line.startsWith("|") || line.startsWith("| ---")) continue;
    const first = line.split("|")[1] ?? "";
    for (const [, code] of first.matchAll(/`([^`]+)`/g)) {
      const name = code!.replace(/[(<].*$/s, "").trim();
      if (IDENTIFIER.test(name)) names.add(name);
    }
  }
  return [...names].sort();
}

/** The names `src/<entry>.ts` exports (values and types), read from its `export` statements. */
export async function indexExportNames(packageRoot: URL, entry = "index"): Promise<string[]> {
  const source = await readFile(new URL(`src/${entry}.ts`, packageRoot), "utf8");
  const names = new Set<string>();
  for (const [, list] of source.matchAll(/export\s+(?:type\s+)?\{([^}]*)\}/g)) {
    for (const part of list!.split(",")) {
      const name = part.replace(/^\s*type\s+/, "").split(/\s+as\s+/).at(-1)!.trim();
      if (name !== "") names.add(name);
    }
  }
  return [...names].sort();
}

/** What a README table (`## API` by default) and its entry (`src/index.ts` by default) disagree on: names only one of them has. */
export async function apiMismatch(
  packageRoot: URL,
  entry = "index",
  heading = "API",
): Promise<{ readonly undocumented: string[]; readonly notExported: string[] }> {
  const documented = await readmeApiNames(packageRoot, heading);
  const exported = await indexExportNames(packageRoot, entry);
  return {
    undocumented: exported.filter((name) => !documented.includes(name)),
    notExported: documented.filter((name) => !exported.includes(name)),
  };
}
