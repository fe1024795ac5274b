import type {
  MaintenanceRecurrenceRules,
  MaintenanceWindowSpec,
} from '@vigil/plugin-healthcheck-common';
import {
  DEFAULT_MAINTENANCE_TIMEZONE,
  parseMaintenanceTime,
} from '@vigil/plugin-healthcheck-common';
import { CronTime } from 'cron';
import { DateTime, IANAZone } from 'luxon';
import { Frequency, Options, RRule } from 'rrule';

/**
 * The occurrences of a recurring window, as instants (epoch milliseconds).
 * @public
 */
export interface MaintenanceRecurrence {
  /** The starts in `[fromMs, toMs]`, in order, at most `limit` of them. */
  startsBetween(fromMs: number, toMs: number, limit: number): number[];
}

/** Where a rule without a start is anchored: its INTERVAL counts from here. */
const DEFAULT_ANCHOR = '2000-01-01T00:00:00';

/** A wall clock is at most 14 hours from UTC; a day covers any zone. */
const ZONE_MARGIN_MS = 24 * 3_600_000;

/** How far a rule is searched for a first occurrence, to tell one that never occurs. */
const NEVER_OCCURS_HORIZON_MS = 5 * 366 * 24 * 3_600_000;

const RRULE_RANGES: Array<[keyof Options, number, number, string]> = [
  ['byhour', 0, 23, 'BYHOUR'],
  ['byminute', 0, 59, 'BYMINUTE'],
  ['bysecond', 0, 59, 'BYSECOND'],
  ['bymonth', 1, 12, 'BYMONTH'],
  ['bymonthday', -31, 31, 'BYMONTHDAY'],
  ['byyearday', -366, 366, 'BYYEARDAY'],
  ['byweekno', -53, 53, 'BYWEEKNO'],
  ['bysetpos', -366, 366, 'BYSETPOS'],
];

/**
 * Reads an RRULE's text into rrule's options, or says why it cannot.
 * Occurrences are computed on the wall clock ("floating" times, written as
 * UTC), then placed in the window's zone by luxon: so 02:00 stays 02:00
 * across a DST change, and a wall-clock time the zone skips moves forward.
 */
function parseRrule(rule: string): Partial<Options> | string {
  let options: Partial<Options>;
  try {
    options = RRule.parseString(rule.replace(/^RRULE:/i, ''));
  } catch (error) {
    return `${JSON.stringify(rule)} is not an RFC 5545 rule: ${
      (error as Error).message
    }`;
  }
  if (options.freq === undefined || Frequency[options.freq] === undefined) {
    return `${JSON.stringify(
      rule,
    )} has no known FREQ; use YEARLY, MONTHLY, WEEKLY, DAILY, HOURLY or MINUTELY`;
  }
  if (options.freq === Frequency.SECONDLY) {
    return 'FREQ=SECONDLY is not allowed; a window recurs every minute at most';
  }
  if (options.count !== undefined && options.count !== null) {
    return 'COUNT is not supported; bound the recurrence with the window\u2019s end';
  }
  if (options.interval !== undefined && !(options.interval >= 1)) {
    return `INTERVAL must be a whole number of at least 1`;
  }
  for (const [key, min, max, name] of RRULE_RANGES) {
    const raw = options[key] as number | number[] | null | undefined;
    const values = raw === undefined || raw === null ? [] : [raw].flat();
    const bad = values.find(
      v => !Number.isInteger(v) || v < min || v > max || (min < 0 && v === 0),
    );
    if (bad !== undefined) {
      return `${name}=${bad} is out of range (${min} to ${max})`;
    }
  }
  return options;
}

function floating(at: DateTime): Date {
  return new Date(
    Date.UTC(
      at.year,
      at.month - 1,
      at.day,
      at.hour,
      at.minute,
      at.second,
      at.millisecond,
    ),
  );
}

/**
 * The instant a wall-clock time (floating, written as UTC) is in a zone.
 * Of a time the zone has twice (when clocks go back), the first, as cron
 * has it; a time the zone skips (when clocks go forward) moves forward by
 * the jump, as luxon has it.
 */
function fromFloating(date: Date, zone: IANAZone): number {
  const wall = date.getTime();
  const candidates = [
    zone.offset(wall - ZONE_MARGIN_MS),
    zone.offset(wall + ZONE_MARGIN_MS),
  ]
    .map(offsetMinutes => wall - offsetMinutes * 60_000)
    .filter(instant => instant + zone.offset(instant) * 60_000 === wall);
  if (candidates.length > 0) {
    return Math.min(...candidates);
  }
  return DateTime.fromMillis(wall, { zone: 'UTC' })
    .setZone(zone, { keepLocalTime: true })
    .toMillis();
}

/** The length of a period of the rules whose periods are all alike on the wall clock. */
const FIXED_PERIOD_MS: Partial<Record<Frequency, number>> = {
  [Frequency.WEEKLY]: 7 * 24 * 3_600_000,
  [Frequency.DAILY]: 24 * 3_600_000,
  [Frequency.HOURLY]: 3_600_000,
  [Frequency.MINUTELY]: 60_000,
};

class RruleRecurrence implements MaintenanceRecurrence {
  readonly #options: Partial<Options>;
  readonly #anchor: Date;
  readonly #zone: IANAZone;

  constructor(options: Partial<Options>, anchor: DateTime, zone: string) {
    this.#options = options;
    this.#anchor = floating(anchor);
    this.#zone = IANAZone.create(zone);
  }

  startsBetween(fromMs: number, toMs: number, limit: number): number[] {
    const starts: number[] = [];
    // The wall clock of [from, to] lies within a day of its instants.
    const searchFrom = fromMs - ZONE_MARGIN_MS;
    this.#ruleFrom(searchFrom).between(
      new Date(searchFrom),
      new Date(toMs + ZONE_MARGIN_MS),
      true,
      date => {
        const at = fromFloating(date, this.#zone);
        if (at > toMs) {
          return false;
        }
        if (at >= fromMs) {
          starts.push(at);
        }
        return starts.length < limit;
      },
    );
    // Two wall-clock times may land on one instant (the skipped hour).
    return [...new Set(starts)].sort((a, b) => a - b);
  }

  /**
   * The rule, its start moved forward by whole intervals to just before
   * `floatingFrom` where its periods are all alike: rrule iterates from the
   * start, and a minutely rule anchored in 2000 would take seconds.
   * Monthly and yearly rules have a few hundred periods since 2000, and
   * months differ, so they keep their start.
   */
  #ruleFrom(floatingFrom: number): RRule {
    const period = FIXED_PERIOD_MS[this.#options.freq!];
    const anchorMs = this.#anchor.getTime();
    const step = period ? period * (this.#options.interval ?? 1) : 0;
    const skip = step ? Math.floor((floatingFrom - anchorMs) / step) : 0;
    return new RRule({
      ...this.#options,
      dtstart: new Date(anchorMs + Math.max(0, skip) * step),
      tzid: null,
    });
  }
}

class CronRecurrence implements MaintenanceRecurrence {
  readonly #cron: CronTime;
  readonly #zone: string;

  constructor(expression: string, zone: string) {
    this.#cron = new CronTime(expression, zone);
    this.#zone = zone;
  }

  startsBetween(fromMs: number, toMs: number, limit: number): number[] {
    const starts: number[] = [];
    // The next start strictly after the given instant, so begin just before.
    let after = fromMs - 1;
    while (starts.length < limit) {
      const next = this.#cron
        .getNextDateFrom(new Date(after), this.#zone)
        .toMillis();
      if (next > toMs) {
        break;
      }
      starts.push(next);
      after = next;
    }
    return starts;
  }
}

/**
 * The recurrence of a window's spec, `undefined` for a one-off window.
 * @throws Error when the spec does not validate; validate first.
 * @public
 */
export function maintenanceRecurrenceOf(
  spec: Pick<MaintenanceWindowSpec, 'rrule' | 'cron' | 'timezone' | 'start'>,
): MaintenanceRecurrence | undefined {
  const zone = spec.timezone ?? DEFAULT_MAINTENANCE_TIMEZONE;
  if (spec.cron !== undefined) {
    return new CronRecurrence(spec.cron, zone);
  }
  if (spec.rrule === undefined) {
    return undefined;
  }
  const options = parseRrule(spec.rrule);
  if (typeof options === 'string') {
    throw new Error(options);
  }
  const anchor = parseMaintenanceTime(spec.start ?? DEFAULT_ANCHOR, zone);
  if (anchor.problem !== undefined) {
    throw new Error(anchor.problem);
  }
  // The anchor's wall clock in the window's zone, whatever offset it was written with.
  return new RruleRecurrence(
    options,
    DateTime.fromMillis(anchor.epochMs, { zone }),
    zone,
  );
}

/**
 * The readers of RRULEs and cron expressions the occurrences are computed
 * with, for `validateMaintenanceWindowSpec`.
 * @public
 */
export const maintenanceRecurrenceRules: MaintenanceRecurrenceRules = {
  rruleProblem(rule) {
    const options = parseRrule(rule);
    if (typeof options === 'string') {
      return options;
    }
    const anchor = floating(DateTime.fromISO(DEFAULT_ANCHOR, { zone: 'UTC' }));
    const first = new RRule({ ...options, dtstart: anchor }).between(
      anchor,
      new Date(anchor.getTime() + NEVER_OCCURS_HORIZON_MS),
      true,
      (_date, index) => index < 1,
    );
    return first.length === 0
      ? `${JSON.stringify(rule)} never occurs (not once in five years)`
      : undefined;
  },
  cronProblem(expression) {
    try {
      // Searches eight years from now at most, as the cron package does.
      new CronTime(expression, DEFAULT_MAINTENANCE_TIMEZONE).getNextDateFrom(
        new Date(),
        DEFAULT_MAINTENANCE_TIMEZONE,
      );
      return undefined;
    } catch (error) {
      return `${JSON.stringify(expression)} is not a cron expression: ${
        (error as Error).message
      }`;
    }
  },
};
