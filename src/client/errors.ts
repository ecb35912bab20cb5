import { RoundtripError } from "../shared/errors.js";
import type { InputRequiredResult } from "../types/index.js";

/**
 * A call answered `input_required` but the caller did not opt into the manual loop. Carries the
 * result so nothing is lost.
 */
export class InputRequiredError extends RoundtripError {
  readonly result: InputRequiredResult;

  constructor(method: string, result: InputRequiredResult) {
    super(
      `${method} answered input_required. Pass { allowInputRequired: true } to receive the ` +
        "InputRequiredResult and retry with { inputResponses, requestState: result.requestState }, " +
        "or use Client, which drives the loop for you.",
    );
    this.result = result;
  }
}
