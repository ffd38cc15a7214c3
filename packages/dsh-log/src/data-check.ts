import { z } from "zod";

const compiled = new WeakMap<z.ZodType, z.ZodType>();

/**
 * Whether `data` passes `schema`, answered as `schema.safeParse(data).success` would be but without
 * building the parsed copy: zod compiles each schema once (per process) into a validator, and hands
 * to its own parser whatever the validator cannot decide. A schema zod cannot compile is checked by
 * its parser, unchanged.
 */
export function passesSchema(schema: z.ZodType, data: unknown): boolean {
  let validator = compiled.get(schema);
  if (validator === undefined) {
    validator = z.compile(schema);
    compiled.set(schema, validator);
  }
  return z.validate(validator, data);
}
