import { CheckDetails } from '@vigil/plugin-healthcheck-common';
import { CheckFormValues, emptyCheckFormValues } from '../formValues';

export const storedCheck: CheckDetails = {
  id: 'payments-http',
  title: 'Payments HTTP',
  revision: 3,
  spec: {
    type: 'http',
    target: 'https://payments.example/{{ environment.name }}/health',
    conditions: [
      '[STATUS] == 200',
      { condition: '[RESPONSE_TIME] < 500', severity: 'degraded' },
      { condition: '[BODY].status == UP', severity: 'unhealthy' },
      { condition: '[CONNECTED] == true' },
    ],
    environmentOverrides: {
      production: { target: 'https://payments.example/health' },
      'eu west': {
        config: { headers: { Authorization: 'Bearer eu', Accept: null } },
      },
      Staging: { target: 'https://staging.example/health', config: {} },
    },
    config: { method: 'HEAD' },
    systems: ['system:default/payments'],
    components: ['component:default/payments-service'],
  },
  source: {
    kind: 'api',
    createdBy: 'user:default/ada',
    createdAt: '2025-01-01T00:00:00.000Z',
    updatedBy: 'user:default/ada',
    updatedAt: '2025-01-02T00:00:00.000Z',
  },
};

/** What a create needs, and the given fields. */
export function valuesWith(values: Partial<CheckFormValues>): CheckFormValues {
  return {
    ...emptyCheckFormValues(),
    id: 'payments-http',
    type: 'http',
    target: 'https://{{ system.name }}.example/health',
    systems: ['payments'],
    ...values,
  };
}
