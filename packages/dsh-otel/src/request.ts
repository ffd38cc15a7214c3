import type { RequestHeaderSnapshot } from "dsh-header";
import type { FrozenGenerateOptions } from "dsh-llm";

/** A request rebuilt from the log, with the header snapshot it carried: what a wire hash is computed from. */
export interface LoggedRequest {
  readonly request: FrozenGenerateOptions;
  readonly snapshot: RequestHeaderSnapshot;
  readonly dispatchSeq: number;
}
