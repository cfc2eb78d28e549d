import type { ValidationIssue } from '../contract/common';

/** An error the client caused; the error handler sends it as `{detail}` with its status. */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    readonly detail: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
  }
}

/** A validation failure found after schema validation (e.g. across fields); sent as a 422 FastAPI body. */
export class UnprocessableError extends Error {
  readonly statusCode = 422;
  constructor(readonly issues: ValidationIssue[]) {
    super(issues.map((i) => i.msg).join('; '));
  }

  static at(loc: (string | number)[], msg: string, type = 'value_error'): UnprocessableError {
    return new UnprocessableError([{ loc, msg, type }]);
  }
}
