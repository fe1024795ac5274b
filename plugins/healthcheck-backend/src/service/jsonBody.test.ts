import { explainBodyError, PayloadTooLargeError } from './jsonBody';

function bodyParserError(fields: Record<string, unknown>, message: string) {
  return Object.assign(new Error(message), fields);
}

describe('explainBodyError', () => {
  it('says how large the body is and what the limit is, as a 413', () => {
    const error = explainBodyError(
      bodyParserError(
        { type: 'entity.too.large', status: 413, length: 70_000 },
        'request entity too large',
      ),
      65_536,
    );
    expect(error).toBeInstanceOf(PayloadTooLargeError);
    expect(error).toMatchObject({
      name: 'PayloadTooLargeError',
      statusCode: 413,
      message:
        'The request body is 70000 bytes; the limit is 65536 bytes (64 KiB)',
    });
  });

  it('says the body is over the limit when it came without a length', () => {
    const error = explainBodyError(
      bodyParserError(
        { type: 'entity.too.large', status: 413, received: 70_000 },
        'request entity too large',
      ),
      1536,
    );
    expect((error as Error).message).toBe(
      'The request body is more than 1536 bytes; the limit is 1536 bytes (1.5 KiB)',
    );
  });

  it('calls a body that is not JSON an input error', () => {
    const error = explainBodyError(
      bodyParserError(
        { type: 'entity.parse.failed', status: 400 },
        'Unexpected token } in JSON at position 9',
      ),
      65_536,
    );
    expect(error).toMatchObject({
      name: 'InputError',
      message:
        'The request body is not valid JSON: Unexpected token } in JSON at position 9',
    });
  });

  it('leaves other errors and no error alone', () => {
    const unsupported = bodyParserError(
      { type: 'charset.unsupported', status: 415 },
      'unsupported charset "LATIN-9"',
    );
    expect(explainBodyError(unsupported, 1)).toBe(unsupported);
    const plain = new Error('boom');
    expect(explainBodyError(plain, 1)).toBe(plain);
    expect(explainBodyError(undefined, 1)).toBeUndefined();
  });
});
