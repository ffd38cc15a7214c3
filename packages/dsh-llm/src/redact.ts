import { LlmError } from "./errors.js";
import { isUnsent, markUnsent } from "./unsent.js";

/** Replaces every occurrence of the given secrets (and their URL- and base64-encoded forms) in a text. */
export type Redactor = (text: string) => string;

/** A redactor for `secrets`; empty or very short values are ignored, since replacing them would mangle text. */
export function redactor(secrets: readonly (string | undefined)[]): Redactor {
  const forms = new Set<string>();
  for (const secret of secrets) {
    if (secret === undefined || secret.length < 4) continue;
    forms.add(secret);
    forms.add(encodeURIComponent(secret));
    forms.add(Buffer.from(secret).toString("base64"));
  }
  const ordered = [...forms].sort((a, b) => b.length - a.length);
  return (text) => ordered.reduce((out, secret) => out.split(secret).join("[redacted]"), text);
}

/** The same error with its message redacted. */
export function redactError(error: LlmError, redact: Redactor): LlmError {
  const message = redact(error.message);
  if (message === error.message) return error;
  const redacted = new LlmError(error.code, message, {
    retryable: error.retryable,
    ...(error.status === undefined ? {} : { status: error.status }),
    ...(error.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: error.retryAfterSeconds }),
  });
  return isUnsent(error) ? markUnsent(redacted) : redacted;
}
