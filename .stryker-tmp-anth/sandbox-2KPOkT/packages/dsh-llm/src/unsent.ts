/** Failures known to have happened before any byte of their request left the process. */
const unsentFailures = new WeakSet<object>();

/**
 * For adapters and the runtime: marks `error` as thrown before any byte of the request left the
 * process (serialization refused, aborted before sending), and returns it. Unmarked failures count as
 * possibly sent, so a log never claims "not sent" without proof.
 */
export function markUnsent<T>(error: T): T {
  if (error !== null && typeof error === "object") unsentFailures.add(error);
  return error;
}

/** Whether `error` was marked by {@link markUnsent}: the attempt it ended sent nothing. */
export function isUnsent(error: unknown): boolean {
  return error !== null && typeof error === "object" && unsentFailures.has(error);
}

/** For adapters: runs the work that comes before sending (checks, serialization); whatever it throws is marked unsent. */
export async function unsentOnFailure<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw markUnsent(error);
  }
}
