import type { LoggerService } from '@backstage/backend-plugin-api';

/** How long a stopping instance tries to write what a journal holds. */
const STOP_FLUSH_TIMEOUT_MS = 5_000;

/**
 * One last bounded attempt to write a journal as its instance stops; what
 * it still holds afterwards is lost with the process, and said so.
 * @internal
 */
export async function lastFlush(options: {
  journal: { readonly size: number };
  flush: () => Promise<void>;
  logger: LoggerService;
  /** What the journal holds, for the warning: `run(s)`, `ping(s)`. */
  what: string;
  timeoutMs?: number;
}): Promise<void> {
  const { journal, logger } = options;
  if (journal.size === 0) {
    return;
  }
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    options.flush(),
    new Promise(resolve => {
      timer = setTimeout(resolve, options.timeoutMs ?? STOP_FLUSH_TIMEOUT_MS);
    }),
  ]);
  clearTimeout(timer);
  if (journal.size > 0) {
    logger.warn(
      `Stopped with ${journal.size} ${options.what} the database never took; they are lost`,
    );
  }
}
