import type { DeepReadonly } from "dsh-llm";

/**
 * One logged event. `seq` is dense from 0 and equals the event's index; `time` is epoch
 * milliseconds; `data` is validated against the schema its type's owner registered.
 */
export interface LogEvent<Type extends string = string, Data = unknown> {
  readonly seq: number;
  readonly type: Type;
  readonly time: number;
  readonly data: DeepReadonly<Data>;
}

/** What a caller appends: the log assigns `seq`, and `time` unless given (seeded forks keep theirs). */
export interface EventInput<Type extends string = string, Data = unknown> {
  readonly type: Type;
  readonly data: Data;
  readonly time?: number;
}

/** Event type names: lowercase path segments such as `user/message` or `request/header`. */
export const EVENT_TYPE_PATTERN = /^[a-z][a-z0-9-]*(\/[a-z0-9-]+)+$/;
