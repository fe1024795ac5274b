import { Config, ConfigReader } from '@backstage/config';
import type { JsonValue } from '@backstage/types';
import { readConfigDuration } from './config';

const KEY = 'healthcheck.scheduler.coalesceWindow';
const OLD_KEY = 'healthcheck.scheduler.coalesceWindowMs';

function configWith(scheduler: Record<string, JsonValue>): Config {
  return new ConfigReader({ healthcheck: { scheduler } });
}

const replaces = {
  key: OLD_KEY,
  readMs: (config: Config, key: string) => config.getOptionalNumber(key),
};

describe('readConfigDuration', () => {
  it('is undefined for a key that is not set', () => {
    expect(readConfigDuration(configWith({}), KEY)).toBeUndefined();
  });

  it.each([
    ['500ms', 500],
    ['30s', 30_000],
    ['1m30s', 90_000],
    ['1.5s', 1_500],
    ['0s', 0],
    ['14d', 14 * 86_400_000],
    ['400d', 400 * 86_400_000],
    ['1y', 365.25 * 86_400_000],
    ['P1Y', 365 * 86_400_000],
    ['2 minutes', 120_000],
    ['1 hour', 3_600_000],
    ['P1DT2H', 26 * 3_600_000],
    ['PT1M30S', 90_000],
    [' 10s ', 10_000],
  ])('reads the text %p as %p ms', (text, ms) => {
    expect(readConfigDuration(configWith({ coalesceWindow: text }), KEY)).toBe(
      ms,
    );
  });

  it.each([
    [{ minutes: 5 }, 300_000],
    [{ days: 14 }, 14 * 86_400_000],
    [{ years: 1 }, 365 * 86_400_000],
    [{ hours: 1, minutes: 30 }, 5_400_000],
    [{ milliseconds: 0 }, 0],
    [{ seconds: '30' }, 30_000],
  ])('reads the object %p as %p ms', (value, ms) => {
    expect(readConfigDuration(configWith({ coalesceWindow: value }), KEY)).toBe(
      ms,
    );
  });

  it.each([
    [
      'soon',
      "Invalid healthcheck.scheduler.coalesceWindow 'soon': it is not a duration; write ",
    ],
    [
      '30',
      "Invalid healthcheck.scheduler.coalesceWindow '30': it is not a duration; ",
    ],
    [
      '',
      "Invalid healthcheck.scheduler.coalesceWindow '': it is not a duration; ",
    ],
    [
      '-P1D',
      "Invalid healthcheck.scheduler.coalesceWindow '-P1D': it is not a duration; ",
    ],
    [
      '0.1ms',
      "Invalid healthcheck.scheduler.coalesceWindow '0.1ms': it comes to 0.1 milliseconds; a duration is a whole number of milliseconds, not negative",
    ],
    [
      { minutse: 5 },
      `Invalid healthcheck.scheduler.coalesceWindow {"minutse":5}: Failed to read duration from config at 'healthcheck.scheduler.coalesceWindow', Error: Needs one or more of 'years'`,
    ],
    [
      { minutes: 5, hourz: 1 },
      `Invalid healthcheck.scheduler.coalesceWindow {"minutes":5,"hourz":1}: Failed to read duration from config at 'healthcheck.scheduler.coalesceWindow', Error: Unknown property 'hourz'`,
    ],
    [
      { minutes: 'five' },
      `Invalid healthcheck.scheduler.coalesceWindow {"minutes":"five"}: Failed to read duration from config, Error: Unable to convert config value for key 'healthcheck.scheduler.coalesceWindow.minutes'`,
    ],
    [
      { minutes: -5 },
      'Invalid healthcheck.scheduler.coalesceWindow {"minutes":-5}: it comes to -300000 milliseconds; a duration is a whole number of milliseconds, not negative',
    ],
    [
      { milliseconds: 0.5 },
      'Invalid healthcheck.scheduler.coalesceWindow {"milliseconds":0.5}: it comes to 0.5 milliseconds;',
    ],
    [
      30,
      "Invalid healthcheck.scheduler.coalesceWindow 30: a duration is a text such as '30s', '1m30s', '14d', '2 minutes' or 'P1DT2H', or an object such as { minutes: 5 }, not a number",
    ],
    [
      true,
      'Invalid healthcheck.scheduler.coalesceWindow true: a duration is a text such as',
    ],
    [
      ['1s'],
      'Invalid healthcheck.scheduler.coalesceWindow ["1s"]: a duration is a text such as',
    ],
  ])('names the key and the problem of %p', (value, message) => {
    expect(() =>
      readConfigDuration(configWith({ coalesceWindow: value }), KEY),
    ).toThrow(
      expect.objectContaining({
        name: 'InputError',
        message: expect.stringContaining(message),
      }),
    );
  });

  it('says which forms a duration may take', () => {
    expect(() =>
      readConfigDuration(configWith({ coalesceWindow: 'soon' }), KEY),
    ).toThrow(
      "write a text such as '30s', '1m30s', '14d', '2 minutes' or 'P1DT2H', or an object such as { minutes: 5 }",
    );
  });

  it('refuses a duration below the minimum, naming the key and the minimum', () => {
    const read = (value: JsonValue) =>
      readConfigDuration(configWith({ coalesceWindow: value }), KEY, {
        minimumMs: 5_000,
      });
    expect(read('5s')).toBe(5_000);
    expect(() => read('4999ms')).toThrow(
      "Invalid healthcheck.scheduler.coalesceWindow '4999ms': it must be at least 5s",
    );
    expect(() => read({ seconds: 1 })).toThrow(
      'Invalid healthcheck.scheduler.coalesceWindow {"seconds":1}: it must be at least 5s',
    );
  });

  describe('with a key it replaces', () => {
    it('reads the old key as it always was and warns once, naming the new key', () => {
      const logger = { warn: jest.fn() };
      const config = configWith({ coalesceWindowMs: 5 });
      expect(readConfigDuration(config, KEY, { replaces, logger })).toBe(5);
      expect(readConfigDuration(config, KEY, { replaces, logger })).toBe(5);
      expect(logger.warn).toHaveBeenCalledTimes(1);
      expect(logger.warn).toHaveBeenCalledWith(
        "healthcheck.scheduler.coalesceWindowMs is deprecated; write healthcheck.scheduler.coalesceWindow instead, a duration such as '30s', '14d' or { days: 14 }",
      );
    });

    it('warns again for another config', () => {
      const logger = { warn: jest.fn() };
      readConfigDuration(configWith({ coalesceWindowMs: 5 }), KEY, {
        replaces,
        logger,
      });
      readConfigDuration(configWith({ coalesceWindowMs: 5 }), KEY, {
        replaces,
        logger,
      });
      expect(logger.warn).toHaveBeenCalledTimes(2);
    });

    it('takes the new key when both are set, and says the old one is ignored', () => {
      const logger = { warn: jest.fn() };
      const config = configWith({ coalesceWindowMs: 5, coalesceWindow: '0s' });
      expect(readConfigDuration(config, KEY, { replaces, logger })).toBe(0);
      expect(logger.warn).toHaveBeenCalledTimes(1);
      expect(logger.warn).toHaveBeenCalledWith(
        'healthcheck.scheduler.coalesceWindowMs is deprecated and ignored, as healthcheck.scheduler.coalesceWindow is set too; remove healthcheck.scheduler.coalesceWindowMs',
      );
    });

    it('warns about nothing when only the new key is set', () => {
      const logger = { warn: jest.fn() };
      expect(
        readConfigDuration(configWith({ coalesceWindow: '3ms' }), KEY, {
          replaces,
          logger,
        }),
      ).toBe(3);
      expect(logger.warn).not.toHaveBeenCalled();
    });

    it('lets the old key be judged by its own reader', () => {
      expect(() =>
        readConfigDuration(configWith({ coalesceWindowMs: 'soon' }), KEY, {
          replaces,
          logger: { warn: jest.fn() },
        }),
      ).toThrow(/healthcheck\.scheduler\.coalesceWindowMs/);
    });
  });
});
