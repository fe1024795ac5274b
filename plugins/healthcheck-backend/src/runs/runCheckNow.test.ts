import { mockServices } from '@backstage/backend-test-utils';
import type { DesiredSlice } from '../model';
import { createRunCheckNow } from './runCheckNow';
import { RunNowRateLimiter, TooManyRequestsError } from './runNowRateLimit';
import type { RunNowStarted } from './TickRunner';

const production = {
  id: 'healthcheck:payments-http:system%3Adefault%2Fpayments:production',
  systemRef: 'system:default/payments',
  environment: 'production',
} as DesiredSlice;
const staging = {
  ...production,
  id: 'healthcheck:payments-http:system%3Adefault%2Fpayments:staging',
  environment: 'staging',
} as DesiredSlice;

function runCheckWith(options: { perCallerPerMinute?: number } = {}) {
  const reads: string[] = [];
  const started: string[] = [];
  const runCheck = createRunCheckNow({
    readRunningOfCheck: async checkId => {
      reads.push(checkId);
      return checkId === 'payments-http' ? [production, staging] : [];
    },
    runNow: async (slice, at): Promise<RunNowStarted> => {
      started.push(slice.id);
      return {
        runId: `${slice.id}@${at}`,
        joined: false,
        done: Promise.resolve(undefined),
      };
    },
    limiter: new RunNowRateLimiter({
      perCallerPerMinute: options.perCallerPerMinute ?? 6,
    }),
    logger: mockServices.logger.mock(),
    now: () => 1_796_000_000_000,
  });
  return { runCheck, reads, started };
}

describe('createRunCheckNow', () => {
  it('starts one run per running slice and answers with their ids', async () => {
    const { runCheck, started } = runCheckWith();

    expect(await runCheck('payments-http', 'user:default/alice')).toEqual([
      {
        runId: `${production.id}@1796000000000`,
        sliceId: production.id,
        systemRef: 'system:default/payments',
        environment: 'production',
      },
      {
        runId: `${staging.id}@1796000000000`,
        sliceId: staging.id,
        systemRef: 'system:default/payments',
        environment: 'staging',
      },
    ]);
    expect(started).toEqual([production.id, staging.id]);
  });

  it('refuses a caller past their rate before reading anything', async () => {
    const { runCheck, reads } = runCheckWith({ perCallerPerMinute: 1 });

    await runCheck('payments-http', 'user:default/alice');
    await expect(
      runCheck('payments-http', 'user:default/alice'),
    ).rejects.toBeInstanceOf(TooManyRequestsError);
    expect(reads).toEqual(['payments-http']);
    await expect(
      runCheck('payments-http', 'user:default/bob'),
    ).resolves.toHaveLength(2);
  });
});
