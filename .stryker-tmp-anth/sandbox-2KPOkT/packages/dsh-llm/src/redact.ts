import { LlmError } from "./errors.js";
import { isUnsent, markUnsent } from "./unsent.js";

/** Replaces every occurrence of the given secrets (and their URL- and base64-encoded forms) in a text. */
export type Redactor = (text: string) => string;

/** A start of a secret this long or longer is redacted wherever it occurs (a cut may have left only it); shorter starts (`sk-`) say nothing. */
const MIN_CUT = 12;

/** `text` with every occurrence of `form`, or of a start of it at least {@link MIN_CUT} long (what a cut leaves), replaced. */
function redactForm(text: string, form: string): string {
  const head = form.slice(0, MIN_CUT);
  let out = "";
  let from = 0;
  for (let at = text.indexOf(head); at !== -1; at = text.indexOf(head, from)) {
    let end = at + head.length;
    while (end - at < form.length && text[end] === form[end - at]) end++;
    out += `${text.slice(from, at)}[redacted]`;
    from = end;
  }
  return out + text.slice(from);
}

/**
 * A redactor for `secrets`: every occurrence of a secret (and of its URL- and base64-encoded forms) is
 * replaced, and so is any start of one at least 12 characters long, which is what a cut leaves of a
 * secret that straddled it (messages quote provider bytes cut to a length). Empty or very short
 * values are ignored, since replacing them would mangle text.
 */
export function redactor(secrets: readonly (string | undefined)[]): Redactor {
  const forms = new Set<string>();
  for (const secret of secrets) {
    if (secret === undefined || secret.length < 4) continue;
    forms.add(secret);
    forms.add(encodeURIComponent(secret));
    forms.add(Buffer.from(secret).toString("base64"));
  }
  const ordered = [...forms].sort((a, b) => b.length - a.length);
  return (text) => ordered.reduce(redactForm, text);
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
