/** One validation problem, as zod and other schema libraries report it. */
export interface SchemaIssue {
  readonly path: readonly PropertyKey[];
  readonly message: string;
}

/**
 * Validation issues as one line: `path: message`, joined by `; `, with paths written as
 * `a.b[0].c`. Errors stay one line however many issues a schema reports.
 */
export function describeIssues(issues: readonly SchemaIssue[]): string {
  return issues
    .map(({ path, message }) => {
      const where = path.map((key, i) => (typeof key === "number" ? `[${key}]` : `${i === 0 ? "" : "."}${String(key)}`)).join("");
      const text = message.replace(/\s*\n\s*/g, " ");
      return where === "" ? text : `${where}: ${text}`;
    })
    .join("; ");
}
