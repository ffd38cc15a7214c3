import { DshError } from "dsh-base";

/** Stable codes of the errors `dsh-cost-report` throws. */
export type CostReportErrorCode =
  /** A price table is not an object from model name to prices per million tokens. */
  "COST_BAD_PRICES";

/** A cost report's input that cannot be used; `code` says why. */
export class CostReportError extends DshError<CostReportErrorCode> {
  override name = "CostReportError";
}
