import type { EpochHeader } from "dsh-header";
import type { Message } from "dsh-llm";
import { promptTokens } from "dsh-simulator";

/** Weights already counted: a surface's messages and a header's tools are the same objects from request to request. */
const counted = new WeakMap<object, number>();

function memo(key: object, count: () => number): number {
  let weight = counted.get(key);
  if (weight === undefined) counted.set(key, (weight = count()));
  return weight;
}

/**
 * A message's weight in a prompt: the tokens of its content as the simulator's tokenizer counts it
 * (the same for every provider). It only decides how a request's reported tokens are shared among
 * its parts; the shares always add up to what the provider reported.
 */
export function messageWeight(message: Message): number {
  return memo(message, () => {
    const { source: _source, ...wire } = message;
    return promptTokens({ messages: [{ role: message.role, content: JSON.stringify(wire) }] }).length;
  });
}

/** The weight of the tools a header lists. */
export function toolsWeight(tools: NonNullable<EpochHeader["tools"]>): number {
  return memo(tools, () => promptTokens({ tools }).length);
}
