import type { LoggerService } from '@backstage/backend-plugin-api';
import { Config, readDurationFromConfig } from '@backstage/config';
import { InputError } from '@backstage/errors';
import {
  durationToMilliseconds,
  HumanDuration,
  JsonValue,
} from '@backstage/types';
import {
  formatDuration,
  parseDuration,
} from '@vigil/plugin-healthcheck-common';

const FORMS =
  "a text such as '30s', '1m30s', '14d', '2 minutes' or 'P1DT2H', or an object such as { minutes: 5 }";

/**
 * A key that a duration key replaces, whose value was a bare number in a
 * unit its name carried (`coalesceWindowMs`, `runRetentionDays`).
 * @public
 */
export interface DeprecatedDurationKey {
  /** The old key, such as `healthcheck.history.runRetentionDays`. */
  key: string;
  /**
   * Reads the old key's value in milliseconds, judged as it always was, so
   * every config that worked keeps working.
   */
  readMs(config: Config, key: string): number | undefined;
}

/**
 * Options of {@link readConfigDuration}.
 * @public
 */
export interface ReadConfigDurationOptions {
  /** Refuses a shorter duration, naming the key and this minimum. */
  minimumMs?: number;
  /** The key this one replaces, read when this one is not set. */
  replaces?: DeprecatedDurationKey;
  /** Where the deprecation of `replaces` is told; needed with it. */
  logger?: Pick<LoggerService, 'warn'>;
}

// Per config object, so each old key is warned about once however many
// readers look at it; bounded by the few deprecated keys there are.
const warnedKeys = new WeakMap<Config, Set<string>>();

/**
 * Reads a duration from the config, in whole milliseconds. It may be
 * written as Vigil's checks write durations (`500ms`, `30s`, `1m30s`), in
 * any form Backstage's `readDurationFromConfig` reads (`14d`, `2 minutes`,
 * ISO 8601 `P1DT2H`, `{ minutes: 5 }`), so `config.d.ts` types it
 * `HumanDuration | string`.
 *
 * With `replaces`, the old key is read when the new one is not set, and a
 * warning names the new key (once per config); when both are set, the new
 * one wins and the warning says so.
 *
 * @throws InputError naming the key, the value and what is wrong with it.
 * @public
 */
export function readConfigDuration(
  config: Config,
  key: string,
  options: ReadConfigDurationOptions = {},
): number | undefined {
  const { replaces, minimumMs } = options;
  if (replaces && config.has(replaces.key)) {
    warnDeprecated(config, key, replaces.key, options.logger);
    if (!config.has(key)) {
      return replaces.readMs(config, replaces.key);
    }
  }
  const ms = readDurationMs(config, key);
  if (ms !== undefined && minimumMs !== undefined && ms < minimumMs) {
    throw new InputError(
      `Invalid ${key} ${describeValue(
        config.get(key),
      )}: it must be at least ${formatDuration(minimumMs)}`,
    );
  }
  return ms;
}

function warnDeprecated(
  config: Config,
  key: string,
  oldKey: string,
  logger: Pick<LoggerService, 'warn'> | undefined,
): void {
  let warned = warnedKeys.get(config);
  if (!warned) {
    warned = new Set();
    warnedKeys.set(config, warned);
  }
  if (warned.has(oldKey)) {
    return;
  }
  warned.add(oldKey);
  logger?.warn(
    config.has(key)
      ? `${oldKey} is deprecated and ignored, as ${key} is set too; remove ${oldKey}`
      : `${oldKey} is deprecated; write ${key} instead, a duration such as '30s', '14d' or { days: 14 }`,
  );
}

function readDurationMs(config: Config, key: string): number | undefined {
  const raw = config.getOptional(key);
  if (raw === undefined) {
    return undefined;
  }
  if (typeof raw === 'string') {
    // Vigil's own syntax first: it reads compound texts (`1m30s`) that
    // Backstage's does not, and refuses fractions of a millisecond.
    try {
      return parseDuration(raw.trim());
    } catch {
      let duration: HumanDuration;
      try {
        duration = readDurationFromConfig(config, { key });
      } catch {
        throw new InputError(
          `Invalid ${key} '${raw}': it is not a duration; write ${FORMS}`,
        );
      }
      return wholeMs(key, raw, duration);
    }
  }
  if (typeof raw === 'object' && raw !== null && !Array.isArray(raw)) {
    let duration: HumanDuration;
    try {
      duration = readDurationFromConfig(config, { key });
    } catch (error) {
      throw new InputError(
        `Invalid ${key} ${describeValue(raw)}: ${
          (error as Error).message
        }; write ${FORMS}`,
      );
    }
    return wholeMs(key, raw, duration);
  }
  throw new InputError(
    `Invalid ${key} ${describeValue(raw)}: a duration is ${FORMS}, not a ${
      Array.isArray(raw) ? 'list' : typeof raw
    }`,
  );
}

/** What Backstage read, in milliseconds, which must be whole and not negative. */
function wholeMs(key: string, raw: JsonValue, duration: HumanDuration): number {
  // Backstage splits a text such as `400d` into years of 365.25 days, then
  // counts a year as 365 days: `400d` would lose 6 hours. Its ISO texts and
  // objects mean whole years of 365 days.
  const leapHours =
    typeof raw === 'string' && !raw.trim().startsWith('P')
      ? (duration.years ?? 0) * 6
      : 0;
  const ms = durationToMilliseconds(duration) + leapHours * 3_600_000;
  if (!Number.isSafeInteger(ms) || ms < 0) {
    throw new InputError(
      `Invalid ${key} ${describeValue(
        raw,
      )}: it comes to ${ms} milliseconds; a duration is a whole number of milliseconds, not negative`,
    );
  }
  return ms;
}

function describeValue(raw: JsonValue): string {
  return typeof raw === 'string' ? `'${raw}'` : JSON.stringify(raw);
}
