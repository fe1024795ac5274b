/*
 * The one command-line parser of the benches and harnesses, on Node's
 * `parseArgs`: unknown flags and bad values are refused with the bench's
 * usage line, and `--help` prints it.
 *
 * Erasable syntax only: the scheduler bench runs on Node's own TypeScript
 * support and imports this file as `../benchArgs.ts`.
 */
import { parseArgs } from 'node:util';

/** One flag of a bench, named without its `--`. */
export interface BenchFlag {
  /** What the flag's value stands for in the usage line (`N`, `URL`); none: a switch. */
  value?: string;
}

export interface BenchCommand {
  /** How the bench is started, for the usage line: `yarn bench:claims`. */
  command: string;
  flags: Record<string, BenchFlag>;
}

/** A flag or value the bench does not take; the message says which. */
export class BenchArgsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BenchArgsError';
  }
}

/** The parsed flags, read and checked one by one by the bench. */
export interface BenchArgs {
  /** `--help` or `-h` was given. */
  readonly help: boolean;
  /** Whether a switch was given. */
  has(flag: string): boolean;
  /** A flag's value as given, or `fallback`. */
  text(flag: string): string | undefined;
  text(flag: string, fallback: string): string;
  /** A whole number of at least `least` (`10_000` allowed). */
  whole(flag: string, fallback: number, least?: number): number;
  /** A finite number of at least `least`, or above `above` when given. */
  number(
    flag: string,
    fallback: number,
    bounds?: { least?: number; above?: number },
  ): number;
  /** Whole numbers of at least `least` separated by commas: `10000,50000`. */
  wholes(flag: string, fallback: string, least?: number): number[];
  /** Words separated by commas, empty ones dropped. */
  list(flag: string, fallback: string): string[];
  /** One of `choices`, or undefined when the flag is not given. */
  oneOf<T extends string>(flag: string, choices: readonly T[]): T | undefined;
  /** Some of `choices` separated by commas, or `fallback`. */
  someOf<T extends string>(
    flag: string,
    choices: readonly T[],
    fallback: readonly T[],
  ): T[];
}

/** `usage: yarn bench:claims [--quick] [--runs N]` */
export function benchUsage(command: BenchCommand): string {
  const flags = Object.entries(command.flags).map(([name, flag]) =>
    flag.value === undefined ? `[--${name}]` : `[--${name} ${flag.value}]`,
  );
  return `usage: ${[command.command, ...flags, '[--help]'].join(' ')}`;
}

export function parseBenchArgs(
  argv: readonly string[],
  command: BenchCommand,
): BenchArgs {
  if ('help' in command.flags) {
    throw new Error("--help is every bench's own flag; do not declare it");
  }
  const options = Object.fromEntries(
    Object.entries(command.flags).map(([name, flag]) => [
      name,
      { type: flag.value === undefined ? 'boolean' : 'string' } as const,
    ]),
  );
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({
      args: [...argv],
      options: { ...options, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: false,
    }).values as Record<string, string | boolean | undefined>;
  } catch (error) {
    throw new BenchArgsError((error as Error).message);
  }

  const declared = (flag: string, takesValue: boolean) => {
    const spec = command.flags[flag];
    if (!spec || (spec.value !== undefined) !== takesValue) {
      // A slip in the bench, not in its arguments.
      throw new Error(
        `the bench reads --${flag} as a ${
          takesValue ? 'value' : 'switch'
        }, which it does not declare`,
      );
    }
  };
  const given = (flag: string): string | undefined => {
    declared(flag, true);
    return values[flag] as string | undefined;
  };
  const wants = (flag: string, what: string, value: string) =>
    new BenchArgsError(`--${flag} wants ${what}, not ${value}`);
  const toNumber = (value: string) =>
    value.trim() === '' ? NaN : Number(value.replace(/_/g, ''));
  const wholesOf = (flag: string, value: string, least: number) => {
    const numbers = value.split(',').map(toNumber);
    if (numbers.some(n => !Number.isInteger(n) || n < least)) {
      throw wants(flag, `whole numbers >= ${least} separated by commas`, value);
    }
    return numbers;
  };
  const listOf = (value: string) => value.split(',').filter(Boolean);

  function text(flag: string): string | undefined;
  function text(flag: string, fallback: string): string;
  function text(flag: string, fallback?: string) {
    return given(flag) ?? fallback;
  }

  return {
    help: values.help === true,
    has(flag) {
      declared(flag, false);
      return values[flag] === true;
    },
    text,
    whole(flag, fallback, least = 1) {
      const value = given(flag);
      if (value === undefined) {
        return fallback;
      }
      const n = toNumber(value);
      if (!Number.isInteger(n) || n < least) {
        throw wants(flag, `a whole number >= ${least}`, value);
      }
      return n;
    },
    number(flag, fallback, bounds = {}) {
      const value = given(flag);
      if (value === undefined) {
        return fallback;
      }
      const n = toNumber(value);
      if (bounds.above !== undefined) {
        if (!Number.isFinite(n) || n <= bounds.above) {
          throw wants(flag, `a number above ${bounds.above}`, value);
        }
      } else if (!Number.isFinite(n) || n < (bounds.least ?? 0)) {
        throw wants(flag, `a number >= ${bounds.least ?? 0}`, value);
      }
      return n;
    },
    wholes(flag, fallback, least = 1) {
      return wholesOf(flag, given(flag) ?? fallback, least);
    },
    list(flag, fallback) {
      return listOf(given(flag) ?? fallback);
    },
    oneOf<T extends string>(flag: string, choices: readonly T[]) {
      const value = given(flag);
      if (value !== undefined && !choices.includes(value as T)) {
        throw wants(flag, `one of ${choices.join(', ')}`, value);
      }
      return value as T | undefined;
    },
    someOf<T extends string>(
      flag: string,
      choices: readonly T[],
      fallback: readonly T[],
    ) {
      const value = given(flag);
      if (value === undefined) {
        return [...fallback];
      }
      const words = listOf(value);
      if (
        words.length === 0 ||
        words.some(word => !choices.includes(word as T))
      ) {
        throw wants(flag, `some of ${choices.join(',')}`, value);
      }
      return words as T[];
    },
  };
}

/**
 * Parses a bench's arguments and reads its options from them with `read`.
 * `--help` prints the usage line and exits; a bad flag or value prints what
 * is wrong and the usage line, and exits with 2.
 */
export function readBenchArgs<T>(
  argv: readonly string[],
  command: BenchCommand,
  read: (args: BenchArgs) => T,
): T {
  try {
    const args = parseBenchArgs(argv, command);
    if (args.help) {
      process.stdout.write(`${benchUsage(command)}\n`);
      process.exit(0);
    }
    return read(args);
  } catch (error) {
    if (!(error instanceof BenchArgsError)) {
      throw error;
    }
    process.stderr.write(`${error.message}\n${benchUsage(command)}\n`);
    return process.exit(2);
  }
}
