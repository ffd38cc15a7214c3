import { DshError } from "dsh-base";

/** Stable codes of the errors `dsh-wire` throws. */
export type WireErrorCode =
  /** The log names no wire profile and a provider this package does not know, so how its requests were serialized cannot be told. */
  "WIRE_UNKNOWN_PROVIDER";

/** A request whose wire bytes cannot be rebuilt; `code` says why. */
export class WireError extends DshError<WireErrorCode> {
  override name = "WireError";
}
