import {
  checkIdFromTitle,
  gitOpsCheckRef,
  isApiCheckId,
  numberedCheckId,
} from './checkIds';

describe('isApiCheckId', () => {
  it('accepts lower-case slugs of 1 to 63 characters', () => {
    expect(isApiCheckId('payments-http')).toBe(true);
    expect(isApiCheckId('a')).toBe(true);
    expect(isApiCheckId('9-lives')).toBe(true);
    expect(isApiCheckId('a'.repeat(63))).toBe(true);
  });

  it('refuses what is not safe in a URL or could be an entity ref', () => {
    expect(isApiCheckId('')).toBe(false);
    expect(isApiCheckId('a'.repeat(64))).toBe(false);
    expect(isApiCheckId('-leading-dash')).toBe(false);
    expect(isApiCheckId('Payments')).toBe(false);
    expect(isApiCheckId('payments_http')).toBe(false);
    expect(isApiCheckId('healthcheck:default/x')).toBe(false);
    expect(isApiCheckId('with space')).toBe(false);
  });
});

describe('checkIdFromTitle', () => {
  it('makes a slug of the words of a title', () => {
    expect(checkIdFromTitle('Payments API (EU)')).toBe('payments-api-eu');
    expect(checkIdFromTitle('  --Checkout   health--  ')).toBe(
      'checkout-health',
    );
    expect(checkIdFromTitle('Zürich Ärzte Façade')).toBe('zurich-arzte-facade');
  });

  it('cuts long titles to 63 characters without a trailing dash', () => {
    const id = checkIdFromTitle(`${'a'.repeat(62)} b c`);
    expect(id).toBe('a'.repeat(62));
    expect(checkIdFromTitle('x'.repeat(100))).toHaveLength(63);
  });

  it('gives up on a title with nothing it can keep', () => {
    expect(checkIdFromTitle('健康检查')).toBeUndefined();
    expect(checkIdFromTitle('!!!')).toBeUndefined();
    expect(checkIdFromTitle('')).toBeUndefined();
  });

  it('yields only valid API check ids', () => {
    const ids = ['Ω 1', 'ab--cd', '0', 'ü'.repeat(80), 'A-'].map(
      checkIdFromTitle,
    );
    expect(ids).toEqual(['1', 'ab-cd', '0', 'u'.repeat(63), 'a']);
    expect(ids.every(id => isApiCheckId(id!))).toBe(true);
  });
});

describe('numberedCheckId', () => {
  it('keeps the base for the first candidate and numbers the next ones', () => {
    expect(numberedCheckId('payments-api', 1)).toBe('payments-api');
    expect(numberedCheckId('payments-api', 2)).toBe('payments-api-2');
    expect(numberedCheckId('payments-api', 12)).toBe('payments-api-12');
  });

  it('cuts a long base so the suffix fits in 63 characters', () => {
    const id = numberedCheckId('a'.repeat(63), 10);
    expect(id).toBe(`${'a'.repeat(60)}-10`);
    expect(isApiCheckId(id)).toBe(true);
    expect(numberedCheckId(`${'a'.repeat(61)}-b`, 2)).toBe(
      `${'a'.repeat(61)}-2`,
    );
  });
});

describe('gitOpsCheckRef', () => {
  it('reads the entity ref of a HealthCheck, in any case', () => {
    expect(gitOpsCheckRef('healthcheck:default/payments-api')).toEqual({
      kind: 'healthcheck',
      namespace: 'default',
      name: 'payments-api',
    });
    expect(gitOpsCheckRef('HealthCheck:team-a/x')).toEqual({
      kind: 'HealthCheck',
      namespace: 'team-a',
      name: 'x',
    });
    expect(gitOpsCheckRef('healthcheck:x')).toEqual({
      kind: 'healthcheck',
      namespace: 'default',
      name: 'x',
    });
  });

  it('is undefined for API ids, other kinds and garbage', () => {
    expect(gitOpsCheckRef('payments-api')).toBeUndefined();
    expect(gitOpsCheckRef('component:default/payments')).toBeUndefined();
    expect(gitOpsCheckRef('healthcheck:')).toBeUndefined();
    expect(gitOpsCheckRef('healthcheck:default/')).toBeUndefined();
    expect(gitOpsCheckRef(':')).toBeUndefined();
  });
});
