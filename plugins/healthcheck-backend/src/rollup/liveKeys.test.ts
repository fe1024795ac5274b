import { LIVE_KEY_LENGTH, liveKeyOf, liveKeysUnder } from './liveKeys';

const deploymentKey = Buffer.alloc(32, 7);
const otherDeploymentKey = Buffer.alloc(32, 8);

describe('liveKeyOf', () => {
  it('is 22 characters of base64url', () => {
    const key = liveKeyOf(deploymentKey, 'system:default/payments');
    expect(key).toHaveLength(LIVE_KEY_LENGTH);
    expect(key).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });

  it('is the same for a system however its ref is cased, so every instance and request agree', () => {
    expect(liveKeyOf(deploymentKey, 'System:Default/Payments')).toBe(
      liveKeyOf(deploymentKey, 'system:default/payments'),
    );
    expect(liveKeysUnder(deploymentKey)('system:default/payments')).toBe(
      liveKeyOf(deploymentKey, 'system:default/payments'),
    );
  });

  it('differs between systems and between deployments', () => {
    const payments = liveKeyOf(deploymentKey, 'system:default/payments');
    expect(liveKeyOf(deploymentKey, 'system:default/search')).not.toBe(
      payments,
    );
    expect(liveKeyOf(otherDeploymentKey, 'system:default/payments')).not.toBe(
      payments,
    );
  });

  it('says nothing of the system it names', () => {
    const key = liveKeyOf(deploymentKey, 'system:default/payments');
    expect(key.toLowerCase()).not.toContain('payments');
    expect(Buffer.from(key, 'base64url').toString('latin1')).not.toContain(
      'payments',
    );
  });
});
