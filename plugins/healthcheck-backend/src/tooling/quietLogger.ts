import type { LoggerService } from '@backstage/backend-plugin-api';

/**
 * A logger for benchmarks, harnesses and test processes outside jest: warnings and
 * errors to stderr with a prefix, the rest dropped.
 */
export function quietLogger(prefix: string): LoggerService {
  const write = (level: string) => (message: string) => {
    process.stderr.write(`[${prefix} ${level}] ${message}\n`);
  };
  const logger: LoggerService = {
    error: write('error'),
    warn: write('warn'),
    info: () => {},
    debug: () => {},
    child: () => logger,
  };
  return logger;
}
