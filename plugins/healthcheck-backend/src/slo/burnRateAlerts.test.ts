import {
  BurnRateSeverity,
  decideBurnRateAlerts,
  DEFAULT_BURN_RATE_ALERT_RULES,
} from './burnRateAlerts';
import { buildSloNotification } from './buildSloNotification';

const rules = DEFAULT_BURN_RATE_ALERT_RULES;
const none = new Set<BurnRateSeverity>();

describe('decideBurnRateAlerts', () => {
  it('pages when the budget burns 14.4x over both 1 h and 5 m', () => {
    const { firing, changes } = decideBurnRateAlerts({
      burnRates: { '5m': 20, '30m': 3, '1h': 14.4, '6h': 2, '3d': 1 },
      rules,
      firingBefore: none,
    });
    expect([...firing]).toEqual(['page']);
    expect(changes).toEqual([{ rule: rules[0], kind: 'firing' }]);
  });

  it('does not page on a burn that has stopped (short window cool) or a blip (long window cool)', () => {
    for (const burnRates of [
      { '5m': 0, '1h': 30 },
      { '5m': 100, '1h': 14.3 },
    ]) {
      expect(
        decideBurnRateAlerts({ burnRates, rules, firingBefore: none }).changes,
      ).toEqual([]);
    }
  });

  it('opens a ticket at 6x over 6 h and 30 m, and pages too when both hold', () => {
    const { firing, changes } = decideBurnRateAlerts({
      burnRates: { '5m': 15, '30m': 6, '1h': 15, '6h': 6 },
      rules,
      firingBefore: none,
    });
    expect([...firing]).toEqual(['page', 'ticket']);
    expect(changes.map(change => change.rule.severity)).toEqual([
      'page',
      'ticket',
    ]);
  });

  it('tells nothing while a condition goes on, and tells its recovery once', () => {
    const burning = { '5m': 20, '1h': 20 };
    const still = decideBurnRateAlerts({
      burnRates: burning,
      rules,
      firingBefore: new Set(['page']),
    });
    expect(still.changes).toEqual([]);
    const recovered = decideBurnRateAlerts({
      burnRates: { '5m': 0, '1h': 20 },
      rules,
      firingBefore: still.firing,
    });
    expect(recovered.changes).toEqual([{ rule: rules[0], kind: 'resolved' }]);
    expect(
      decideBurnRateAlerts({
        burnRates: { '5m': 0, '1h': 20 },
        rules,
        firingBefore: recovered.firing,
      }).changes,
    ).toEqual([]);
  });

  it('counts a window where nothing counted as not burning', () => {
    expect(
      decideBurnRateAlerts({
        burnRates: { '5m': undefined, '1h': 50 },
        rules,
        firingBefore: none,
      }).changes,
    ).toEqual([]);
  });

  it('takes thresholds from the rules it is given', () => {
    const strict = [{ ...rules[0], burnRate: 2 }];
    expect(
      decideBurnRateAlerts({
        burnRates: { '5m': 2, '1h': 2 },
        rules: strict,
        firingBefore: none,
      }).changes,
    ).toEqual([{ rule: strict[0], kind: 'firing' }]);
  });
});

describe('buildSloNotification', () => {
  const objective = {
    objectiveRef: 'servicelevelobjective:default/checkout-availability',
    title: 'Checkout is up',
    systemRef: 'system:default/checkout',
    environment: 'production',
    target: 0.999,
  };

  it('pages the system owner with the burn rates, under one scope per objective and severity', () => {
    expect(
      buildSloNotification(
        objective,
        { rule: rules[0], kind: 'firing' },
        { '1h': 16.04, '5m': 30 },
      ),
    ).toEqual({
      entityRef: 'system:default/checkout',
      payload: {
        title:
          'Checkout is up (checkout in production) burns its error budget 14.4x too fast',
        description:
          "The 99.9% objective's budget burns at 16x over 1h, 30x over 5m (page at 14.4x on both).",
        link: '/catalog/default/system/checkout/health',
        severity: 'high',
        topic: 'healthcheck-slo',
        scope:
          'healthcheck-slo:servicelevelobjective:default/checkout-availability:page',
      },
    });
  });

  it('tells the recovery under the same scope, with low severity', () => {
    const firing = buildSloNotification(
      objective,
      { rule: rules[1], kind: 'firing' },
      { '6h': 7, '30m': 8 },
    );
    const resolved = buildSloNotification(
      objective,
      { rule: rules[1], kind: 'resolved' },
      { '6h': 5.5, '30m': undefined },
    );
    expect(firing.payload.severity).toBe('normal');
    expect(resolved.payload).toMatchObject({
      title:
        'Checkout is up (checkout in production) no longer burns its error budget too fast',
      description:
        'Burn rate is down to 5.5x over 6h, nothing counted over 30m, below 6x.',
      severity: 'low',
      scope: firing.payload.scope,
    });
  });
});
