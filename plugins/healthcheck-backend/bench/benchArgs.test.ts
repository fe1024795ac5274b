import { benchUsage, parseBenchArgs, type BenchCommand } from './benchArgs';

const command: BenchCommand = {
  command: 'yarn bench:example',
  flags: {
    quick: {},
    runs: { value: 'N' },
    rate: { value: 'PER_S' },
    sizes: { value: 'N,N' },
    only: { value: 'SECTIONS' },
    postgres: { value: 'URL' },
  },
};

describe('parseBenchArgs', () => {
  it('reads switches, values and their fallbacks', () => {
    const args = parseBenchArgs(
      ['--quick', '--runs', '5', '--sizes=10_000,50000'],
      command,
    );
    expect(args.help).toBe(false);
    expect(args.has('quick')).toBe(true);
    expect(args.whole('runs', 3)).toBe(5);
    expect(args.number('rate', 2000)).toBe(2000);
    expect(args.wholes('sizes', '1')).toEqual([10_000, 50_000]);
    expect(args.text('postgres', 'postgresql://localhost')).toBe(
      'postgresql://localhost',
    );
    expect(args.text('postgres')).toBeUndefined();
    expect(args.list('only', 'stream,capacity')).toEqual([
      'stream',
      'capacity',
    ]);
  });

  it('sees --help and -h', () => {
    expect(parseBenchArgs(['--help'], command).help).toBe(true);
    expect(parseBenchArgs(['-h'], command).help).toBe(true);
  });

  it('refuses a flag the bench does not take, and stray words', () => {
    expect(() => parseBenchArgs(['--rnus', '5'], command)).toThrow(
      /Unknown option '--rnus'/,
    );
    expect(() => parseBenchArgs(['5'], command)).toThrow(/Unexpected argument/);
    expect(() => parseBenchArgs(['--runs'], command)).toThrow(
      /--runs <value>' argument missing/,
    );
  });

  it('names the flag and the value it refuses', () => {
    const args = parseBenchArgs(
      ['--runs', '2.5', '--rate', '0', '--sizes', '10,x', '--only', 'big'],
      command,
    );
    expect(() => args.whole('runs', 3)).toThrow(
      '--runs wants a whole number >= 1, not 2.5',
    );
    expect(() => args.number('rate', 1, { above: 0 })).toThrow(
      '--rate wants a number above 0, not 0',
    );
    expect(args.number('rate', 1)).toBe(0);
    expect(() => args.wholes('sizes', '1')).toThrow(
      '--sizes wants whole numbers >= 1 separated by commas, not 10,x',
    );
    expect(() => args.oneOf('only', ['fleet', 'heap'])).toThrow(
      '--only wants one of fleet, heap, not big',
    );
    expect(() => args.someOf('only', ['fleet', 'heap'], ['fleet'])).toThrow(
      '--only wants some of fleet,heap, not big',
    );
  });

  it('refuses an empty value as a number', () => {
    const args = parseBenchArgs(['--runs='], command);
    expect(() => args.whole('runs', 3, 0)).toThrow(
      '--runs wants a whole number >= 0, not ',
    );
  });

  it('reads some of a set of choices', () => {
    const args = parseBenchArgs(['--only', 'heap,fleet'], command);
    expect(args.someOf('only', ['fleet', 'heap', 'big'], ['big'])).toEqual([
      'heap',
      'fleet',
    ]);
    expect(args.oneOf('postgres', ['a'])).toBeUndefined();
  });

  it('throws when the bench reads a flag it did not declare', () => {
    const args = parseBenchArgs([], command);
    expect(() => args.whole('seconds', 1)).toThrow(
      'the bench reads --seconds as a value, which it does not declare',
    );
    expect(() => args.has('runs')).toThrow(
      'the bench reads --runs as a switch, which it does not declare',
    );
  });
});

describe('benchUsage', () => {
  it('lists every flag with what its value stands for', () => {
    expect(benchUsage(command)).toBe(
      'usage: yarn bench:example [--quick] [--runs N] [--rate PER_S] [--sizes N,N] [--only SECTIONS] [--postgres URL] [--help]',
    );
  });
});
