import { z } from "zod";

/** Whether data passes one schema. */
export type DataCheck = (data: unknown) => boolean;

const checks = new WeakMap<z.ZodType, DataCheck>();

/**
 * The check of `schema`, answering as `schema.safeParse(data).success` would, through the
 * straight-line validator zod compiles once per schema (per process) instead of its parser, which
 * walks the schema node by node; zod hands to that parser whatever the validator cannot decide. A
 * schema zod cannot compile is checked by its parser.
 */
export function schemaCheck(schema: z.ZodType): DataCheck {
  let check = checks.get(schema);
  if (check === undefined) {
    const validator = z.compile(schema);
    check = (data) => z.validate(validator, data);
    checks.set(schema, check);
  }
  return check;
}
