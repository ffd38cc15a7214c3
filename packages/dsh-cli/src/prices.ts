import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import type { PriceOf } from "dsh-agent";
import { CostReportError, catalogPrices, priceTable } from "dsh-cost-report";
import type { ModelPrice } from "dsh-llm";
import type { z } from "zod";
import { CliError, EXIT } from "./cli-error.js";
import type { CliIo } from "./io.js";
import { currentAdapter } from "./providers.js";

/** The prices `--prices FILE` gives (`priceTable` of `dsh-cost-report`); a file that is not such a table is a usage error naming what is wrong. */
export async function readPricesFile(path: string, io: CliIo): Promise<ReadonlyMap<string, ModelPrice>> {
  const value = await readJsonFile("--prices", path, io);
  try {
    return priceTable(value, path);
  } catch (error) {
    if (error instanceof CostReportError) throw new CliError(`--prices ${path}: ${error.message}`, EXIT.usage);
    throw error;
  }
}

async function readJsonFile(option: string, path: string, io: CliIo): Promise<unknown> {
  try {
    return JSON.parse(await readFile(resolve(io.cwd, path), "utf8"));
  } catch (error) {
    throw new CliError(`${option} ${path}: ${(error as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : "not JSON"}`, EXIT.usage);
  }
}

/**
 * The JSON file an option names, checked against `schema`: a missing file, text that is not JSON or
 * data of another shape is a usage error naming the option, the file and (for the shape) the first
 * field that is wrong, prefixed by `expected` when given.
 */
export async function readJsonOption<T>(option: string, path: string, schema: z.ZodType<T>, io: CliIo, expected = ""): Promise<T> {
  const result = schema.safeParse(await readJsonFile(option, path, io));
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  throw new CliError(`${option} ${path}: ${expected}${issue.path.join(".") || "(top)"}: ${issue.message}`, EXIT.usage);
}

/**
 * The CLI's prices: the `--prices` file first, then the catalog of the provider's adapter (the
 * simulators' providers are priced as the APIs they imitate, so a simulated session shows what it
 * would have cost).
 */
export function priceOf(file: ReadonlyMap<string, ModelPrice> | undefined): PriceOf {
  return catalogPrices(currentAdapter, file);
}
