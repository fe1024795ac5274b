import type {
  LoggerService,
  RootLoggerService,
} from '@backstage/backend-plugin-api';
import type { JsonObject } from '@backstage/types';
import { format } from 'node:util';

/**
 * The word before a transition's message on a chaos instance's stdout,
 * where the suite reads it.
 * @internal
 */
export const TRANSITION_LINE = 'transition';

/** Where a chaos instance's log lines go. @internal */
export interface ChaosLogSink {
  /** A line of the instance's log (its stderr, kept in a file). */
  log(line: string): void;
  /** A transition's message, for the suite to act on (its stdout). */
  transition(message: string): void;
}

/** The logger the plugin logs its environments' transitions with. */
const TRANSITIONS_LOGGER = { plugin: 'healthcheck', component: 'transitions' };

class ChaosLogger implements RootLoggerService {
  readonly #sink: ChaosLogSink;
  readonly #meta: JsonObject;
  readonly #logsTransitions: boolean;

  constructor(sink: ChaosLogSink, meta: JsonObject) {
    this.#sink = sink;
    this.#meta = meta;
    this.#logsTransitions = Object.entries(TRANSITIONS_LOGGER).every(
      ([key, value]) => meta[key] === value,
    );
  }

  error(message: string, meta?: Error | JsonObject): void {
    this.#sink.log(this.#line('error', message, meta));
  }

  warn(message: string, meta?: Error | JsonObject): void {
    this.#sink.log(this.#line('warn', message, meta));
  }

  info(message: string, meta?: Error | JsonObject): void {
    if (this.#logsTransitions) {
      this.#sink.log(this.#line('info', message, meta));
      this.#sink.transition(message);
    }
  }

  debug(): void {}

  child(meta: JsonObject): LoggerService {
    return new ChaosLogger(this.#sink, { ...this.#meta, ...meta });
  }

  #line(level: string, message: string, meta?: Error | JsonObject): string {
    const labels = Object.entries(this.#meta)
      .map(([key, value]) => `${key}=${value}`)
      .join(',');
    const detail = meta === undefined ? '' : ` ${format('%O', meta)}`;
    return `${new Date().toISOString()} ${level} ${labels} ${message}${detail}`;
  }
}

/**
 * A chaos instance's root logger: errors and warnings only, as the suite
 * ran its instances before, and the one info line the suite acts on: the
 * health-check plugin's `<system> in <environment>: <from> -> <to>`, which
 * it logs once a transition's status is stored, with its outbox entries,
 * and before it delivers them. The suite SIGKILLs an instance on that line
 * (kill-mid-transition), so the line goes to the sink's `transition` too.
 * Other info lines are left out: three backends' worth of task and request
 * logs would cost a small machine more than they tell.
 * @internal
 */
export function createChaosRootLogger(sink: ChaosLogSink): RootLoggerService {
  return new ChaosLogger(sink, {});
}
