import type { RequestHeaderSnapshot } from "dsh-header";
import type { FrozenGenerateOptions } from "dsh-llm";

/** A request rebuilt from the log, with the header snapshot it carried, where and when it was dispatched: what a wire hash or an expected cache read is computed from. */
export interface LoggedRequest {
  readonly request: FrozenGenerateOptions;
  readonly snapshot: RequestHeaderSnapshot;
  readonly turn: number;
  readonly step: number;
  readonly dispatchSeq: number;
  /** When it was dispatched (epoch ms). */
  readonly time: number;
}
