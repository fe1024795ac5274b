import { formatProblemPath } from './problemPath';

describe('formatProblemPath', () => {
  it('writes keys with dots and list indexes in brackets', () => {
    expect(formatProblemPath(['spec', 'conditions', 2])).toBe(
      'spec.conditions[2]',
    );
    expect(formatProblemPath(['id'])).toBe('id');
  });

  it('quotes a key that is no plain name', () => {
    expect(
      formatProblemPath(['spec', 'environmentOverrides', 'eu west', 'target']),
    ).toBe('spec.environmentOverrides["eu west"].target');
    expect(formatProblemPath(['spec', 'config', 'headers', 'X.Y'])).toBe(
      'spec.config.headers["X.Y"]',
    );
  });

  it('writes nothing for the document as a whole', () => {
    expect(formatProblemPath([])).toBe('');
  });
});
