import { readFileSync } from "node:fs";

/** The floor of loading a JSONL file: read it, split on newlines, parse every line and keep every object. */
export function floor(path: string): unknown[] {
  const bytes = readFileSync(path);
  const values: unknown[] = [];
  for (let start = 0; start < bytes.length; ) {
    const end = bytes.indexOf(0x0a, start);
    if (end < 0) break;
    values.push(JSON.parse(bytes.toString("utf8", start, end)));
    start = end + 1;
  }
  return values;
}
