/** Anything that streams chunks for a request, as a dsh adapter does. */
interface Streaming {
  stream(request: never, options: never): AsyncIterable<unknown>;
}

/** A usage chunk as dsh adapters stream them. */
function isUsage(chunk: unknown): chunk is { readonly type: "usage"; readonly usage: { readonly cacheReadTokens: number } } {
  return typeof chunk === "object" && chunk !== null && (chunk as { type?: unknown }).type === "usage";
}

/**
 * `adapter` behind a gateway that lost the prefix's affinity from its `from`-th request on (counted
 * from 1): the provider answers as before but reports no cache reads — what a log cannot explain.
 */
export function coldGateway<A extends Streaming>(adapter: A, from: number): A {
  let requests = 0;
  async function* stream(this: unknown, request: never, options: never): AsyncIterable<unknown> {
    const cold = ++requests >= from;
    for await (const chunk of adapter.stream(request, options)) yield cold && isUsage(chunk) ? { ...chunk, usage: { ...chunk.usage, cacheReadTokens: 0 } } : chunk;
  }
  return new Proxy(adapter, {
    get(target, key) {
      if (key === "stream") return stream;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
