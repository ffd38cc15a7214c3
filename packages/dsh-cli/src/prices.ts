import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import type { PriceOf } from "dsh-agent";
import type { LlmAdapter, ModelPrice } from "dsh-llm";
import { z } from "zod";
import { CliError, EXIT } from "./cli-error.js";
import type { CliIo } from "./io.js";
import { currentAdapter } from "./providers.js";

const perMillion = z.number().finite().nonnegative();
const priceSchema = z.strictObject({
  input: perMillion,
  cacheRead: perMillion,
  cacheWrite5m: perMillion.optional(),
  cacheWrite1h: perMillion.optional(),
  output: perMillion,
});
const pricesSchema = z.record(z.string().min(1), priceSchema);

/**
 * The prices `--prices FILE` gives: a JSON object from model name to `{ input, cacheRead,
 * cacheWrite5m?, cacheWrite1h?, output }` in US dollars per million tokens. They take precedence over
 * the catalogs'. A file that is not such an object is a usage error naming what is wrong.
 */
export async function readPricesFile(path: string, io: CliIo): Promise<ReadonlyMap<string, ModelPrice>> {
  const data = await readJsonOption("--prices", path, pricesSchema, io);
  const prices = new Map<string, ModelPrice>();
  for (const [model, fields] of Object.entries(data)) {
    const { cacheWrite5m, cacheWrite1h, ...rest } = fields;
    prices.set(model, { ...rest, ...(cacheWrite5m === undefined ? {} : { cacheWrite5m }), ...(cacheWrite1h === undefined ? {} : { cacheWrite1h }), checked: "(your file)", source: path });
  }
  return prices;
}

/**
 * The JSON file an option names, checked against `schema`: a missing file, text that is not JSON or
 * data of another shape is a usage error naming the option, the file and (for the shape) the first
 * field that is wrong, prefixed by `expected` when given.
 */
export async function readJsonOption<T>(option: string, path: string, schema: z.ZodType<T>, io: CliIo, expected = ""): Promise<T> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(resolve(io.cwd, path), "utf8"));
  } catch (error) {
    throw new CliError(`${option} ${path}: ${(error as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : "not JSON"}`, EXIT.usage);
  }
  const result = schema.safeParse(parsed);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  throw new CliError(`${option} ${path}: ${expected}${issue.path.join(".") || "(top)"}: ${issue.message}`, EXIT.usage);
}

/**
 * Where the CLI's prices come from: the `--prices` file first, then the catalog of the provider's
 * adapter (the simulators' providers are priced as the APIs they imitate, so a simulated session shows
 * what it would have cost). A retired model has no price; its catalog's refusal is no failure here.
 */
export function priceOf(file: ReadonlyMap<string, ModelPrice> | undefined): PriceOf {
  const adapters = new Map<string, LlmAdapter | undefined>();
  const adapterOf = (provider: string) => {
    if (!adapters.has(provider)) adapters.set(provider, currentAdapter(provider));
    return adapters.get(provider);
  };
  return (provider, model) => {
    const own = file?.get(model);
    if (own !== undefined) return own;
    try {
      return adapterOf(provider)?.price?.(model);
    } catch {
      return undefined;
    }
  };
}

/** A price in one line: the rates per million tokens, and when and where they were read. */
export function describePrice(model: string, price: ModelPrice): string {
  const usd = (value: number) => `$${Number(value.toPrecision(6))}`;
  const writes = [price.cacheWrite5m === undefined ? [] : [`${usd(price.cacheWrite5m)} 5m write`], price.cacheWrite1h === undefined ? [] : [`${usd(price.cacheWrite1h)} 1h write`]].flat();
  const peak = price.peak === undefined ? "" : `, x${price.peak.factor} at UTC hours ${price.peak.hoursUtc.map(({ from, to }) => `${from}-${to}`).join(", ")}${price.peak.weekdaysOnly ? " on weekdays" : ""}`;
  return `${model}: ${usd(price.input)} input, ${usd(price.cacheRead)} cache read, ${writes.length === 0 ? "writes as input" : writes.join(", ")}, ${usd(price.output)} output per 1M tokens${peak} (checked ${price.checked}, ${price.source})`;
}
