import { ProtocolError } from "../shared/errors.js";
import {
  CACHEABLE_METHODS,
  declaresTasks,
  describeFailure,
  describeInputRequestsProblem,
  describeTaskProblem,
  INPUT_REQUIRED_METHODS,
  isCoreMethod,
  isTaskStatus,
  METHOD_RULES,
  TASKS_EXTENSION,
  TaskMethod,
  validInputRequiredResult,
} from "../types/core.js";
import type {
  ClientCapabilities,
  CreateTaskResult,
  InputRequiredResult,
  ResultObject,
} from "../types/index.js";
import { InputRequiredError, TaskCreatedError } from "./errors.js";

/**
 * What the caller of one request opted into receiving (rather than having thrown at it).
 *
 * @example
 * const accept: ResultOptIns = { allowInputRequired: true, allowTask: true };
 */
export interface ResultOptIns {
  allowInputRequired?: boolean;
  allowTask?: boolean;
}

/**
 * Checks a result as the client receives it: a missing `resultType` reads as complete, an unknown
 * one is a `ProtocolError`, `input_required` only on the three carriers of a 2026-07-28 session
 * (`declared` defined), and a task handle only on
 * `tools/call` for a request that declared the Tasks extension (`declared`: the capabilities the
 * request carried, `undefined` on a 2025 session, which has no extensions). `tasks/get` answers are
 * checked as tasks.
 *
 * @example
 * checkResult("tools/call", result, { allowTask: true }, session.capabilities);
 */
export function checkResult(
  method: string,
  result: ResultObject,
  optIns: ResultOptIns,
  declared: ClientCapabilities | undefined,
): ResultObject {
  const resultType = result.resultType ?? "complete";
  if (resultType === "input_required") {
    if (!INPUT_REQUIRED_METHODS.has(method)) {
      throw new ProtocolError(`The server answered input_required to ${method}, which cannot carry it`);
    }
    // input_required is 2026-07-28 vocabulary: retrying with inputResponses would send a 2025
    // server params it does not know, and run callbacks for questions it could not have asked.
    if (declared === undefined) {
      throw new ProtocolError(
        `The server answered input_required to ${method} on a 2025-era session, which has no such result`,
      );
    }
    if (!validInputRequiredResult(result)) {
      throw new ProtocolError(
        `The server sent a malformed InputRequiredResult for ${method} (${describeFailure(validInputRequiredResult, result)})`,
      );
    }
    const problem =
      result.inputRequests === undefined ? undefined : describeInputRequestsProblem(result.inputRequests);
    if (problem)
      throw new ProtocolError(`The server sent a malformed InputRequiredResult for ${method} (${problem})`);
    if (optIns.allowInputRequired !== true)
      throw new InputRequiredError(method, result as InputRequiredResult);
    return result;
  }
  if (resultType === "task" && method === "tools/call" && declaresTasks(declared)) {
    return checkCreateTask(result, optIns.allowTask === true);
  }
  if (resultType !== "complete") {
    // A task handle anywhere else is, to this request, a resultType it never agreed to.
    const hint =
      resultType === "task"
        ? ` (a task is valid only on tools/call, for a request that declared the ${TASKS_EXTENSION} extension)`
        : "";
    throw new ProtocolError(
      `The server answered ${method} with an unknown resultType ${JSON.stringify(resultType)}${hint}`,
    );
  }
  if (method === TaskMethod.Get) return checkDetailedTask(result);
  // The spec reads a negative ttlMs as 0 (stale at once): not a reason to refuse the whole result.
  const read =
    typeof result.ttlMs === "number" && result.ttlMs < 0 && CACHEABLE_METHODS.has(method)
      ? { ...result, ttlMs: 0 }
      : result;
  const valid = isCoreMethod(method) ? METHOD_RULES[method].validResult : undefined;
  if (valid && !valid(read)) {
    throw new ProtocolError(`The server sent a malformed ${method} result (${describeFailure(valid, read)})`);
  }
  return read;
}

/** A task handle carries the metadata alone: whatever its status, the payload is read with tasks/get. */
function checkCreateTask(result: ResultObject, allowTask: boolean): ResultObject {
  const problem = isTaskStatus(result.status)
    ? describeTaskProblem({ ...result, status: "working" }, "receives")
    : describeTaskProblem(result, "receives");
  if (problem)
    throw new ProtocolError(`The server sent a malformed CreateTaskResult for tools/call (${problem})`);
  if (!allowTask) throw new TaskCreatedError(result as unknown as CreateTaskResult);
  return result;
}

function checkDetailedTask(result: ResultObject): ResultObject {
  const problem =
    describeTaskProblem(result, "receives") ??
    (result.inputRequests === undefined ? undefined : describeInputRequestsProblem(result.inputRequests));
  if (problem) throw new ProtocolError(`The server sent a malformed ${TaskMethod.Get} result (${problem})`);
  return result;
}
