import { describeIssues } from "dsh-base";
import type { ResponseFormat } from "dsh-llm";
import { z } from "zod";
import { AgentError } from "./errors.js";

/** A structured answer: the response format to put in the call config, and how to read the turn's final text. */
export interface StructuredOutput<T> {
  /** For `config.responseFormat`: the schema the provider is asked to follow, logged with the header. */
  readonly responseFormat: ResponseFormat;
  /** The final answer's text as a value: parsed as JSON and validated, or the one-line reason it is not one. */
  parse(text: string): { readonly value: T } | { readonly error: string };
}

/**
 * A structured output from a zod schema: `responseFormat` carries its JSON Schema (as the provider
 * sees it) and `parse` validates the answer with the zod schema itself. `strict` asks OpenAI to
 * enforce the schema exactly.
 */
export function structuredOutput<Schema extends z.ZodType>(name: string, schema: Schema, options: { readonly strict?: boolean } = {}): StructuredOutput<z.output<Schema>> {
  const { $schema: _marker, ...jsonSchema } = z.toJSONSchema(schema, { io: "output" }) as Record<string, z.core.util.JSONType>;
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(name)) throw new AgentError("AGENT_INVALID_OPTIONS", `structured output names are 1-64 characters of [A-Za-z0-9_-], not ${JSON.stringify(name)}`);
  return {
    responseFormat: { name, schema: jsonSchema, ...(options.strict === undefined ? {} : { strict: options.strict }) },
    parse(text) {
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch (cause) {
        return { error: `the answer is not JSON: ${(cause as Error).message}` };
      }
      const parsed = schema.safeParse(json);
      return parsed.success ? { value: parsed.data } : { error: `the answer does not match ${name}: ${describeIssues(parsed.error.issues)}` };
    },
  };
}
