import { ConfigReader } from '@backstage/config';
import type { JsonObject } from '@backstage/types';
import { readEngineSettings } from './engineSettings';

function read(healthcheck: JsonObject) {
  const logger = { warn: jest.fn() };
  const settings = readEngineSettings(
    new ConfigReader({ healthcheck }),
    logger,
  );
  return { settings, warnings: logger.warn.mock.calls.map(([text]) => text) };
}

describe('readEngineSettings', () => {
  it('leaves everything unset to the defaults of the parts', () => {
    expect(read({})).toEqual({
      settings: {
        refreshIntervalMs: undefined,
        coalesceWindowMs: undefined,
        admission: {},
      },
      warnings: [],
    });
  });

  it('reads the durations as text or as objects, and the admission counts', () => {
    const counts = {
      concurrency: 40,
      laneCapacity: 4,
      suspectAfterRuns: 2,
      recoveryProbeEvery: 7,
      endpointShare: 5,
    };
    expect(
      read({
        scheduler: { refreshInterval: '5s', coalesceWindow: '10ms' },
        admission: {
          ...counts,
          timeoutFloor: { milliseconds: 500 },
        },
      }),
    ).toEqual({
      settings: {
        refreshIntervalMs: 5_000,
        coalesceWindowMs: 10,
        admission: {
          ...counts,
          timeoutFloorMs: 500,
        },
      },
      warnings: [],
    });
    expect(
      read({
        scheduler: { coalesceWindow: { milliseconds: 0 } },
        admission: { timeoutFloor: '2s' },
      }).settings,
    ).toMatchObject({
      coalesceWindowMs: 0,
      admission: { timeoutFloorMs: 2_000 },
    });
  });

  it.each([
    [
      'still reads coalesceWindowMs and timeoutFloorMs as milliseconds, with a warning each',
      { coalesceWindowMs: 0 },
      { timeoutFloorMs: 250 },
      { coalesceWindowMs: 0, timeoutFloorMs: 250 },
      [
        "healthcheck.scheduler.coalesceWindowMs is deprecated; write healthcheck.scheduler.coalesceWindow instead, a duration such as '30s', '14d' or { days: 14 }",
        "healthcheck.admission.timeoutFloorMs is deprecated; write healthcheck.admission.timeoutFloor instead, a duration such as '30s', '14d' or { days: 14 }",
      ],
    ],
    [
      'takes the new keys over the old ones',
      { coalesceWindowMs: 7, coalesceWindow: '3ms' },
      { timeoutFloorMs: 250, timeoutFloor: '1s' },
      { coalesceWindowMs: 3, timeoutFloorMs: 1_000 },
      [
        'healthcheck.scheduler.coalesceWindowMs is deprecated and ignored, as healthcheck.scheduler.coalesceWindow is set too; remove healthcheck.scheduler.coalesceWindowMs',
        'healthcheck.admission.timeoutFloorMs is deprecated and ignored, as healthcheck.admission.timeoutFloor is set too; remove healthcheck.admission.timeoutFloorMs',
      ],
    ],
  ])('%s', (_, scheduler, admission, expected, expectedWarnings) => {
    const { settings, warnings } = read({ scheduler, admission });
    expect({
      coalesceWindowMs: settings.coalesceWindowMs,
      timeoutFloorMs: settings.admission.timeoutFloorMs,
    }).toEqual(expected);
    expect(warnings).toEqual(expectedWarnings);
  });

  it('names the key of a bad duration', () => {
    expect(() => read({ admission: { timeoutFloor: 1000 } })).toThrow(
      "Invalid healthcheck.admission.timeoutFloor 1000: a duration is a text such as '30s'",
    );
    expect(() => read({ scheduler: { coalesceWindow: 'now' } })).toThrow(
      "Invalid healthcheck.scheduler.coalesceWindow 'now': it is not a duration",
    );
  });
});
