import { CustomErrorBase, InputError } from '@backstage/errors';
import express from 'express';

/**
 * The largest JSON body the API reads. A check is a few KiB at most; the
 * limit keeps a careless or hostile client from making the backend buffer
 * and parse megabytes.
 * @internal
 */
export const MAX_JSON_BODY_BYTES = 64 * 1024;

/**
 * A request body over the limit: 413, because Backstage's error handler
 * takes the status from `statusCode`.
 * @internal
 */
export class PayloadTooLargeError extends CustomErrorBase {
  name = 'PayloadTooLargeError' as const;
  readonly statusCode = 413;
}

/**
 * Parses JSON bodies up to `limitBytes` and turns body-parser's errors into
 * ones with a readable message: 413 for a body over the limit, 400
 * (InputError) for one that is not JSON.
 * @internal
 */
export function jsonBody(
  limitBytes: number = MAX_JSON_BODY_BYTES,
): express.RequestHandler {
  const parse = express.json({ limit: limitBytes });
  return (req, res, next) =>
    parse(req, res, error => next(explainBodyError(error, limitBytes)));
}

/**
 * The error to answer for one from body-parser: too large and malformed
 * bodies get a plain message; any other error is kept as it is.
 * @internal
 */
export function explainBodyError(error: unknown, limitBytes: number): unknown {
  if (!isBodyParserError(error)) {
    return error;
  }
  if (error.type === 'entity.too.large') {
    const size =
      typeof error.length === 'number'
        ? `is ${error.length} bytes`
        : `is more than ${limitBytes} bytes`;
    return new PayloadTooLargeError(
      `The request body ${size}; the limit is ${limitBytes} bytes (${formatKiB(
        limitBytes,
      )})`,
    );
  }
  if (error.type === 'entity.parse.failed') {
    return new InputError(
      `The request body is not valid JSON: ${error.message}`,
    );
  }
  return error;
}

function isBodyParserError(
  error: unknown,
): error is Error & { type: string; length?: unknown } {
  return (
    error instanceof Error &&
    typeof (error as { type?: unknown }).type === 'string'
  );
}

function formatKiB(bytes: number): string {
  return `${Math.round((bytes / 1024) * 10) / 10} KiB`;
}
