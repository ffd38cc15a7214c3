import { z } from "zod";

/** Whether data passes one schema. */
export type DataCheck = (data: unknown) => boolean;

const checks = new WeakMap<z.ZodType, DataCheck>();

/**
 * The check of `schema`, answering as `schema.safeParse(data).success` would but without building the
 * parsed copy: zod compiles each schema once (per process) into a validator, and hands to its own
 * parser whatever the validator cannot decide. A schema zod cannot compile is checked by its parser.
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
