/**
 * The base of every coded error dsh throws: a stable `code` to branch on, a one-line message, and
 * the underlying `cause` when there is one. Each package subclasses it once with its own codes.
 */
export class DshError<Code extends string = string> extends Error {
  override name = "DshError";

  constructor(
    readonly code: Code,
    message: string,
    options: { readonly cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
  }
}

/** Whether `value` is a {@link DshError}, optionally with the given `code`. */
export function isDshError(value: unknown, code?: string): value is DshError {
  return value instanceof DshError && (code === undefined || value.code === code);
}
