/** Control characters (C0 but tab and newline, DEL, C1) and the Unicode separators and direction overrides that can fake output. */
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const UNSAFE_ONE_LINE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

function escape(char: string): string {
  switch (char) {
    case "\n":
      return "\\n";
    case "\t":
      return "\\t";
    case "\r":
      return "\\r";
    default: {
      const code = char.charCodeAt(0);
      return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
    }
  }
}

/**
 * Text from the log or the model, made safe to print: control characters and direction overrides are
 * written as escapes, so nothing can move the cursor, recolour the terminal or fake a `dsh:` line.
 * One line unless `multiline` (which keeps newlines and tabs, for an answer's own text).
 */
export function printable(text: string, multiline = false): string {
  return text.replace(multiline ? UNSAFE : UNSAFE_ONE_LINE, escape);
}
