import { LlmError } from "./errors.js";

/**
 * One read of a response body that fails with `LLM_TIMEOUT` (retryable) when no bytes arrive for
 * `idleTimeoutMs`, or with `timeoutError()` when given: for adapters, so a provider that stops
 * sending never hangs a request.
 */
export async function readWithIdleTimeout(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  idleTimeoutMs: number,
  timeoutError: () => Error = () => new LlmError("LLM_TIMEOUT", `no data from the provider for ${idleTimeoutMs} ms`),
): Promise<Awaited<ReturnType<ReadableStreamDefaultReader<Uint8Array>["read"]>>> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(timeoutError()), idleTimeoutMs);
  });
  try {
    return await Promise.race([reader.read(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
