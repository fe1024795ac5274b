import { isHealthStatus, worstStatus } from './status';

describe('worstStatus', () => {
  it('ranks unhealthy over degraded over unknown over healthy over paused', () => {
    expect(worstStatus(['healthy', 'unhealthy', 'degraded'])).toBe('unhealthy');
    expect(worstStatus(['healthy', 'degraded'])).toBe('degraded');
    expect(worstStatus(['healthy', 'unknown'])).toBe('unknown');
    expect(worstStatus(['paused', 'healthy'])).toBe('healthy');
    expect(worstStatus(['paused'])).toBe('paused');
  });

  it('calls nothing at all unknown', () => {
    expect(worstStatus([])).toBe('unknown');
  });
});

describe('isHealthStatus', () => {
  it('accepts the five status words and nothing else', () => {
    for (const word of [
      'healthy',
      'degraded',
      'unhealthy',
      'unknown',
      'paused',
    ]) {
      expect(isHealthStatus(word)).toBe(true);
    }
    expect(isHealthStatus('Healthy')).toBe(false);
    expect(isHealthStatus(undefined)).toBe(false);
  });
});
