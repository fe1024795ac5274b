import type {
  BackstageCredentials,
  HttpAuthService,
  LoggerService,
} from '@backstage/backend-plugin-api';
import {
  ConflictError,
  InputError,
  NotFoundError,
  ServiceUnavailableError,
  stringifyError,
} from '@backstage/errors';
import {
  healthcheckCheckUpdatePermission,
  heartbeatTimingOf,
  isHeartbeatSpec,
  tryDecodeSliceId,
  type HealthCheckSpec,
} from '@vigil/plugin-healthcheck-common';
import express from 'express';
import Router from 'express-promise-router';
import { LRUCache } from 'lru-cache';
import type { RunNowStarted } from '../runs/TickRunner';
import type { DesiredSlice } from '../model';
import type { CheckReader } from '../service/checkReader';
import { answerWithin } from '../database/answerWithin';
import { explainBodyError } from '../service/jsonBody';
import { createTypedRouter } from '../schema/createTypedRouter';
import type {
  DatabaseHeartbeatStore,
  PingKind,
} from './DatabaseHeartbeatStore';
import type { DeafSpans } from './DeafSpans';
import { heartbeatDeadline } from './heartbeatDeadline';
import type { JournaledPing, PingJournal } from './PingJournal';
import { hashPingToken, isPingTokenShaped } from './pingTokens';
import {
  MAX_RATE_LIMITED_TOKENS,
  type PingRateLimiter,
} from './PingRateLimiter';

/** The largest ping body kept as the run's message. */
export const MAX_PING_BODY_BYTES = 10 * 1024;

/** The paths that take pings, which carry no Backstage credentials. */
export const PING_PATH = '/v1/ping';

/** What a job pinging while the database is away, unknown here, is told. */
const PING_RETRY_AFTER_SECONDS = 5;

/**
 * How long a ping waits for each database call before it counts the
 * database away: a connection that hangs must not hold the job's request.
 */
const PING_DATABASE_DEADLINE_MS = 2_000;

function fromDatabase<T>(work: Promise<T>): Promise<T> {
  return answerWithin(
    work,
    PING_DATABASE_DEADLINE_MS,
    `The database did not answer within ${PING_DATABASE_DEADLINE_MS} ms`,
  );
}

const PING_KINDS: Record<string, PingKind> = {
  '': 'success',
  start: 'start',
  fail: 'fail',
};

/** What the heartbeat routes need. */
export interface HeartbeatRouterOptions {
  logger: LoggerService;
  httpAuth: HttpAuthService;
  store: DatabaseHeartbeatStore;
  limiter: PingRateLimiter;
  checks: Pick<CheckReader, 'authorizedCheck'>;
  /** The running slices of a check, as the scheduler runs them. */
  readRunningOfCheck: (checkId: string) => Promise<DesiredSlice[]>;
  /** Records a run of the slice now, through the path every run takes. */
  runNow: (
    slice: DesiredSlice,
    at: number,
  ) => Promise<Pick<RunNowStarted, 'joined' | 'done'>>;
  /** Removes secret values from a ping's body before it is kept. */
  redact: (text: string) => string;
  /**
   * Where pings go while the database cannot take them; without it such a
   * ping fails.
   */
  pings?: PingJournal;
  /** Told when the database fails and answers; moves the deadlines shown. */
  deafSpans?: Pick<DeafSpans, 'deaf' | 'heard' | 'spans'>;
  /** The plugin's external base URL, for the ping URLs. */
  baseUrl: () => Promise<string>;
  now?: () => number;
}

/**
 * The ping routes (`GET|POST /v1/ping/{token}`, and `/start`, `/fail`),
 * whose token is their only credential, and the routes that manage a
 * heartbeat check's tokens (`GET /v1/checks/{id}/heartbeat`,
 * `POST /v1/checks/{id}/heartbeat/tokens`), for those who may update it.
 */
export function createHeartbeatRouter(
  options: HeartbeatRouterOptions,
): express.Router {
  const { store, limiter, logger, pings, deafSpans } = options;
  const now = options.now ?? Date.now;
  const router = Router();
  // The slices of tokens pinged here, to take their pings while the
  // database cannot say; bounded like the rate limiter's counts.
  const knownTokens = new LRUCache<string, PingedSlice>({
    max: MAX_RATE_LIMITED_TOKENS,
  });

  /**
   * The slice a token pings. While the database cannot be read (and pings
   * are journaled), the slice this instance last found for it, marked
   * `away`; a 503 to retry when it has seen none.
   */
  const sliceOfToken = async (
    tokenHash: string,
    res: express.Response,
  ): Promise<{ found?: PingedSlice; away: boolean }> => {
    try {
      const found = await fromDatabase(store.findByTokenHash(tokenHash));
      deafSpans?.heard(now());
      if (found) {
        knownTokens.set(tokenHash, found);
      } else {
        knownTokens.delete(tokenHash);
      }
      return { found, away: false };
    } catch (error) {
      deafSpans?.deaf(now());
      const known = pings && knownTokens.get(tokenHash);
      if (!known) {
        res.setHeader('Retry-After', String(PING_RETRY_AFTER_SECONDS));
        throw new ServiceUnavailableError(
          'The database cannot be reached, and this instance has not seen this ping URL yet; try again',
          error,
        );
      }
      return { found: known, away: true };
    }
  };

  /**
   * Records the run of a ping's slice, through its claim as every run; a
   * ping whose run cannot be recorded now is still kept, and the slice's
   * next tick reads it.
   */
  const runAfterPing = async (found: PingedSlice, at: number) => {
    try {
      const slice = (await options.readRunningOfCheck(found.checkId)).find(
        s => s.id === found.sliceId,
      );
      if (!slice) {
        logger.info(
          `Ping of ${found.sliceId} kept; the slice is not running (paused or removed)`,
        );
        return;
      }
      const run = await options.runNow(slice, at);
      if (run.joined) {
        // A run under way may have read the signals before this ping:
        // one more after it, so the ping shows now, not at the next tick.
        run.done
          .then(() => options.runNow(slice, now()))
          .catch(error =>
            logger.warn(`Run after a ping of ${slice.id} failed`, error),
          );
      }
    } catch (error) {
      logger.warn(
        `Ping of ${
          found.sliceId
        } kept; its run waits for the slice's next tick: ${stringifyError(
          error,
        )}`,
      );
    }
  };

  // Pings taken while the database was away have their runs once written.
  pings?.onWritten(written => {
    const bySlice = new Map<string, JournaledPing>();
    for (const ping of written) {
      if (ping.kind !== 'start') {
        bySlice.set(ping.sliceId, ping);
      }
    }
    for (const ping of bySlice.values()) {
      void runAfterPing(ping, now());
    }
  });
  const readBody = express.text({
    type: () => true,
    limit: MAX_PING_BODY_BYTES,
  });

  /**
   * Whether the database took the ping (it is then journaled); without a
   * journal, its failure.
   */
  const storePing = async (
    found: PingedSlice,
    kind: PingKind,
    at: number,
    message: string | undefined,
  ): Promise<boolean> => {
    try {
      await fromDatabase(store.recordPing(found.sliceId, kind, at, message));
      deafSpans?.heard(now());
      if (pings?.size) {
        void pings.flush();
      }
      return true;
    } catch (error) {
      deafSpans?.deaf(now());
      if (!pings) {
        throw error;
      }
      return false;
    }
  };

  const ping = async (req: express.Request, res: express.Response) => {
    // The time the job pinged, whatever the database makes it wait.
    const at = now();
    const kind = PING_KINDS[req.params.kind ?? ''];
    const token = req.params.token;
    // Every text is hashed and looked up alike, found or not.
    const tokenHash = hashPingToken(token);
    const { found, away } =
      kind && isPingTokenShaped(token)
        ? await sliceOfToken(tokenHash, res)
        : { found: undefined, away: false };
    if (!found) {
      throw new NotFoundError('No heartbeat has this ping URL');
    }
    const refused = limiter.take(tokenHash);
    if (refused) {
      res.setHeader('Retry-After', String(refused.retryAfterSeconds));
      res.status(429).json({
        error: {
          name: 'TooManyRequestsError',
          message: `Too many pings of this URL; try again in ${refused.retryAfterSeconds} s`,
        },
      });
      return;
    }
    await new Promise<void>((resolve, reject) =>
      readBody(req, res, error =>
        error
          ? reject(explainBodyError(error, MAX_PING_BODY_BYTES))
          : resolve(),
      ),
    );
    const text = typeof req.body === 'string' ? req.body.trim() : '';
    const message = text ? options.redact(text) : undefined;
    const stored = !away && (await storePing(found, kind, at, message));
    if (!stored && pings) {
      // Kept in memory with the time it came, written when the database
      // answers; its run follows then.
      pings.keep({
        sliceId: found.sliceId,
        checkId: found.checkId,
        scheduledAt: at,
        kind,
        tokenHash,
        message,
      });
      res.status(202).json({ ok: true, signal: kind, journaled: true });
      return;
    }
    if (kind !== 'start') {
      // The run is recorded where every run is, by the slice's claim, so
      // one ping is one run whichever instance took it.
      await runAfterPing(found, at);
    }
    res.status(200).json({ ok: true, signal: kind });
  };
  router.get(`${PING_PATH}/:token/:kind?`, ping);
  router.post(`${PING_PATH}/:token/:kind?`, ping);

  const managed = createManagementRoutes(options, now);
  router.use(managed);
  return router;
}

/** The slice a ping token pings. */
interface PingedSlice {
  sliceId: string;
  checkId: string;
}

function createManagementRoutes(
  options: HeartbeatRouterOptions,
  now: () => number,
) {
  const { store, httpAuth, checks } = options;
  const router = createTypedRouter();

  /** The check if the caller may manage it and it is a heartbeat check. */
  async function heartbeatCheck(id: string, credentials: BackstageCredentials) {
    const check = await checks.authorizedCheck(
      id,
      credentials,
      healthcheckCheckUpdatePermission,
    );
    if (!isHeartbeatSpec(check.spec)) {
      throw new ConflictError(
        `Check '${id}' is a ${check.spec.type} check; only a heartbeat check has ping URLs`,
      );
    }
    return check;
  }

  router.get('/v1/checks/:id/heartbeat', async (req, res) => {
    const credentials = await httpAuth.credentials(req, {
      allow: ['user', 'service'],
    });
    const check = await heartbeatCheck(req.params.id, credentials);
    const timing = heartbeatTimingOf(check.spec as HealthCheckSpec);
    const items = (await store.listOfCheck(check.id)).map(slice => {
      const key = tryDecodeSliceId(slice.sliceId);
      const deadline = heartbeatDeadline(
        timing,
        slice.lastPingAt ?? slice.armedAt,
        options.deafSpans?.spans(now()),
      );
      return {
        sliceId: slice.sliceId,
        systemRef: key?.systemRef,
        environment: key?.environment,
        tokenHint: slice.tokenHint,
        armedAt: iso(slice.armedAt)!,
        lastPingAt: iso(slice.lastPingAt),
        lastStartAt: iso(slice.lastStartAt),
        lastFailAt: iso(slice.lastFailAt),
        lastDurationMs: slice.lastDurationMs,
        deadline: Number.isFinite(deadline) ? iso(deadline) : undefined,
      };
    });
    res.json({ items });
  });

  router.post('/v1/checks/:id/heartbeat/tokens', async (req, res) => {
    const credentials = await httpAuth.credentials(req, {
      allow: ['user', 'service'],
    });
    const check = await heartbeatCheck(req.params.id, credentials);
    const sliceId = req.body?.sliceId;
    const running = await options.readRunningOfCheck(check.id);
    const slices = sliceId
      ? running.filter(slice => slice.id === sliceId)
      : running;
    if (sliceId && slices.length === 0) {
      throw new InputError(
        `Check '${check.id}' has no running slice ${JSON.stringify(
          sliceId,
        )}; its slices are ${running.map(s => s.id).join(', ') || '(none)'}`,
      );
    }
    if (slices.length === 0) {
      throw new NotFoundError(
        `Check '${check.id}' has no running slices: it is paused, or names no system in the catalog yet`,
      );
    }
    const issued = await store.issueTokens(
      check.id,
      slices.map(slice => slice.id),
      now(),
    );
    const base = await options.baseUrl();
    const bySlice = new Map(slices.map(slice => [slice.id, slice]));
    res.status(201).json({
      items: issued.map(token => ({
        ...token,
        systemRef: bySlice.get(token.sliceId)!.systemRef,
        environment: bySlice.get(token.sliceId)!.environment,
        pingUrl: `${base}${PING_PATH}/${token.token}`,
      })),
    });
  });
  return router;
}

function iso(at: number | undefined): string | undefined {
  return at === undefined ? undefined : new Date(at).toISOString();
}
