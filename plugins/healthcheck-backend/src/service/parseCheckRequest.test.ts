import { InvalidCheckError, parseCheckRequest } from './parseCheckRequest';

const spec = {
  type: 'http',
  target: 'https://{{ system.name }}.example.com/health',
  systems: ['payments'],
};

const probeTypes = {
  get: (type: string) =>
    type === 'http'
      ? {
          type: 'http',
          configSchema: {
            type: 'object',
            additionalProperties: false,
            properties: { method: { enum: ['GET', 'HEAD'] } },
          },
        }
      : undefined,
  list: () => ['http'],
};

const create = { operation: 'create', validation: {} } as const;
const update = {
  operation: 'update',
  pathId: 'payments-http',
  validation: {},
} as const;

function problemsOf(
  body: unknown,
  options: Parameters<typeof parseCheckRequest>[1],
) {
  try {
    parseCheckRequest(body, options);
  } catch (error) {
    if (error instanceof InvalidCheckError) {
      return error.problems;
    }
    throw error;
  }
  throw new Error('expected the request to be refused');
}

describe('parseCheckRequest', () => {
  it('reads a create request with an id', () => {
    expect(
      parseCheckRequest(
        { id: 'payments-http', title: 'Payments', spec },
        create,
      ),
    ).toEqual({
      id: 'payments-http',
      idDerivedFromTitle: false,
      title: 'Payments',
      spec,
    });
  });

  it('derives the id from the title when there is none', () => {
    expect(parseCheckRequest({ title: 'Payments API', spec }, create)).toEqual({
      id: 'payments-api',
      idDerivedFromTitle: true,
      title: 'Payments API',
      spec,
    });
  });

  it('reads an update request with the id of the path and the revision read', () => {
    expect(
      parseCheckRequest({ id: 'payments-http', spec, revision: 4 }, update),
    ).toEqual({
      id: 'payments-http',
      idDerivedFromTitle: false,
      spec,
      revision: 4,
    });
  });

  it('refuses a body that is not an object, naming the fields it wants', () => {
    for (const body of [undefined, null, [], 'spec', 3]) {
      expect(problemsOf(body, create)).toEqual([
        {
          path: [],
          reason:
            'the body must be a JSON object with the fields id, title, spec',
        },
      ]);
    }
  });

  it('lists every problem of the envelope and of the spec together', () => {
    expect(
      problemsOf(
        {
          id: 'Payments HTTP',
          title: '   ',
          revision: 2,
          spec: { ...spec, interval: 'soon' },
        },
        create,
      ),
    ).toEqual([
      {
        path: ['revision'],
        reason: 'unknown field; the fields here are id, title, spec',
      },
      { path: ['title'], reason: 'must not be blank; leave it out instead' },
      {
        path: ['id'],
        reason:
          '"Payments HTTP" is not a check id: use 1 to 63 lower-case letters, digits and dashes, starting with a letter or digit, such as payments-http',
      },
      {
        path: ['spec', 'interval'],
        reason: expect.stringMatching(/^"soon" is not a duration: /),
      },
    ]);
  });

  it('requires a spec', () => {
    expect(problemsOf({ id: 'x' }, create)).toEqual([
      {
        path: ['spec'],
        reason: 'is required: the check, as in a HealthCheck entity',
      },
    ]);
  });

  it('refuses titles that are not text or too long', () => {
    expect(problemsOf({ id: 'x', title: 7, spec }, create)).toEqual([
      { path: ['title'], reason: 'must be a string' },
    ]);
    expect(
      problemsOf({ id: 'x', title: 't'.repeat(256), spec }, create),
    ).toEqual([
      { path: ['title'], reason: 'must be at most 255 characters, not 256' },
    ]);
  });

  it('asks for an id when the title yields none', () => {
    expect(problemsOf({ title: '健康', spec }, create)).toEqual([
      {
        path: ['id'],
        reason:
          'cannot be derived from the title "健康", which has no Latin letters or digits; give one',
      },
    ]);
  });

  it('refuses an update whose body names another id or a revision below 1', () => {
    expect(
      problemsOf({ id: 'other', revision: 1.5, spec }, update).map(p => p.path),
    ).toEqual([['id'], ['revision']]);
    expect(problemsOf({ revision: '3', spec }, update)).toEqual([
      {
        path: ['revision'],
        reason:
          'must be the whole number 1 or more that the check had when you read it, not "3"',
      },
    ]);
  });

  it('validates against the options it is given: known types and the minimum interval', () => {
    expect(
      problemsOf(
        { id: 'x', spec: { ...spec, type: 'grpc', interval: '10s' } },
        {
          operation: 'create',
          validation: {
            probeTypes: {
              get: (type: string) =>
                ['http', 'tcp'].includes(type) ? { type } : undefined,
              list: () => ['http', 'tcp'],
            },
            minIntervalMs: 30_000,
          },
        },
      ),
    ).toEqual([
      {
        path: ['spec', 'type'],
        reason: 'unknown probe type "grpc"; the known types are http, tcp',
      },
      {
        path: ['spec', 'interval'],
        reason: '10s is below the minimum interval of 30s',
      },
    ]);
  });

  it("checks config against the probe type's schema when given the probe types", () => {
    expect(
      problemsOf(
        { id: 'x', spec: { ...spec, config: { method: 'PUT' } } },
        { ...create, validation: { probeTypes } },
      ),
    ).toEqual([
      {
        path: ['spec', 'config', 'method'],
        reason: 'must be one of GET, HEAD',
      },
    ]);
  });
});

describe('InvalidCheckError', () => {
  it('puts a single problem on one line', () => {
    const error = new InvalidCheckError([
      { path: ['spec', 'interval'], reason: 'is not a duration' },
    ]);
    expect(error.name).toBe('InputError');
    expect(error.message).toBe(
      'Invalid check: spec.interval: is not a duration',
    );
  });

  it('puts several problems one per line, after their count', () => {
    const error = new InvalidCheckError([
      { path: ['id'], reason: 'is required' },
      { path: ['spec', 'target'], reason: 'is required; really' },
    ]);
    expect(error.message).toBe(
      'Invalid check, 2 problems:\n- id: is required\n- spec.target: is required; really',
    );
    expect(error.problems).toHaveLength(2);
  });
});
