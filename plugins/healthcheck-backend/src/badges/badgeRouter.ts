import { createHash } from 'node:crypto';
import { LoggerService } from '@backstage/backend-plugin-api';
import { NotFoundError } from '@backstage/errors';
import {
  canonicalEnvironmentName,
  SystemRollup,
} from '@vigil/plugin-healthcheck-common';
import express from 'express';
import { createTypedRouter } from '../schema/createTypedRouter';
import { worstObjective } from '../slo/objectiveSummaries';
import {
  BadgeContent,
  ResponseTimes,
  responseTimeBadge,
  sloBadge,
  statusBadge,
  uptimeBadge,
} from './badgeContent';
import {
  BADGE_WINDOW_MS,
  BadgeRequest,
  InvalidBadgeRequestError,
  parseBadgeRequest,
} from './badgeRequest';
import { BADGES_PATH } from './badgeSettings';
import { renderBadgeSvg, toShieldsEndpoint } from './renderBadge';

/**
 * What an up-time or response-time loader is asked: one system, or one of
 * its environments, over `[from, to)`.
 * @internal
 */
export interface BadgeMeasurementQuery {
  /** Canonical (lower-case) ref, `system:default/payments`. */
  systemRef: string;
  /** Canonical environment name; absent for the whole system. */
  environment?: string;
  from: Date;
  to: Date;
}

/** The environment a request names (canonically), as its system spells it. */
function findEnvironment(
  environments: readonly string[],
  requested: string,
): string | undefined {
  return environments.find(
    name => canonicalEnvironmentName(name) === requested,
  );
}

/**
 * The 404 of a badge of a system health checks do not know, and of one the
 * caller may not read: the same answer, so a badge does not tell whether a
 * hidden system exists.
 * @internal
 */
export function unknownSystemError(systemRef: string): NotFoundError {
  return new NotFoundError(`No system ${systemRef} with health checks`);
}

/**
 * An objective as an SLO badge shows it.
 * @internal
 */
export interface BadgeObjective {
  /** Canonical ServiceLevelObjective entity ref. */
  ref: string;
  /** Canonical environment name. */
  environment: string;
  target: number;
  attainment: number | null;
  remainingRatio: number | null;
}

/**
 * The objective an SLO badge shows: the one named, else the one with the
 * least budget left (one with nothing counted only when none has a figure).
 * @internal
 */
export function objectiveOfBadge(
  objectives: readonly BadgeObjective[],
  wanted: { environment?: string; objective?: string },
): BadgeObjective | undefined {
  return worstObjective(
    objectives.filter(
      objective =>
        (wanted.environment === undefined ||
          objective.environment === wanted.environment) &&
        (wanted.objective === undefined || objective.ref === wanted.objective),
    ),
  );
}

/**
 * What {@link createBadgeRouter} needs.
 * @internal
 */
export interface BadgeRouterOptions {
  logger: LoggerService;
  /**
   * The system's rollup, for status badges; `undefined` for a system unknown
   * to health checks.
   */
  loadRollup(systemRef: string): Promise<SystemRollup | undefined>;
  /**
   * The names of the system's environments, for up-time and response-time
   * badges: they only need to know that the system and the environment
   * exist, and may know it as late as their figure. `undefined` for a
   * system unknown to health checks. A system or environment missing here
   * is looked up in {@link BadgeRouterOptions.loadRollup} before a 404.
   */
  loadEnvironments(systemRef: string): Promise<readonly string[] | undefined>;
  /** The fraction (0..1) of the window it was up; `undefined` without data. */
  loadUptime(query: BadgeMeasurementQuery): Promise<number | undefined>;
  /** Response-time percentiles in ms; `undefined` without data. */
  loadResponseTime(
    query: BadgeMeasurementQuery,
  ): Promise<ResponseTimes | undefined>;
  /**
   * The maintenance over the system now: the windows in force and the
   * (check, environment) pairs they cover; `undefined` when none covers it.
   * A status badge in maintenance says so; none without it.
   */
  loadMaintenance?(systemRef: string): Promise<
    | {
        current: readonly unknown[];
        inMaintenance?: ReadonlyArray<{ environment: string }>;
      }
    | undefined
  >;
  /**
   * The system's service-level objectives where they stand now, for SLO
   * badges; SLO badges answer 404 without it.
   */
  loadObjectives?(systemRef: string): Promise<readonly BadgeObjective[]>;
  /**
   * Called for every valid request before anything is loaded; throws
   * (`NotAllowedError`, `AuthenticationError`) to refuse it. Authentication
   * itself is the httpRouter auth policy's: see `badgeAuthPolicy`.
   */
  authorize?(
    req: express.Request,
    target: { systemRef: string },
  ): Promise<void>;
  /** The clock for the windows; tests set it. */
  now?: () => Date;
}

/**
 * The badge route, under the plugin's router:
 * `GET /v1/badges/systems/:namespace/:name` with the query
 * {@link parseBadgeRequest} reads. Answers an SVG (`image/svg+xml`) or
 * shields.io endpoint JSON (`application/json`), never cached stale
 * (`Cache-Control: no-cache, max-age=0`, so GitHub's camo revalidates) but
 * with an ETag, so revalidating an unchanged badge is a 304.
 *
 * Throws `InputError` (400, listing every problem) for a bad request and
 * `NotFoundError` (404) for a system, or an environment of it, that health
 * checks do not know; the plugin's error middleware answers them.
 * @internal
 */
export function createBadgeRouter(options: BadgeRouterOptions): express.Router {
  const {
    logger,
    loadRollup,
    loadEnvironments,
    loadUptime,
    loadResponseTime,
    loadMaintenance,
    loadObjectives,
    authorize,
  } = options;
  const now = options.now ?? (() => new Date());
  const router = createTypedRouter();

  /** The request's environment as the system names it; throws 404 if none. */
  function environmentOf(
    request: BadgeRequest,
    environments: readonly string[],
  ): string | undefined {
    if (request.environment === undefined) {
      return undefined;
    }
    const found = findEnvironment(environments, request.environment);
    if (found === undefined) {
      throw new NotFoundError(
        `System ${request.systemRef} has no environment "${
          request.environment
        }"; ${
          environments.length > 0
            ? `its environments are ${environments.join(', ')}`
            : 'it has no environments yet'
        }`,
      );
    }
    return found;
  }

  /**
   * The environments an up-time or response-time badge may name. The
   * remembered names serve every request they answer; one they do not
   * answer (a system or an environment added since they were read) is
   * asked of the rollup, so a badge is never refused for what a status
   * badge already shows.
   */
  async function measuredEnvironments(
    request: BadgeRequest,
  ): Promise<readonly string[] | undefined> {
    const remembered = await loadEnvironments(request.systemRef);
    const answers =
      remembered !== undefined &&
      (request.environment === undefined ||
        findEnvironment(remembered, request.environment) !== undefined);
    if (answers) {
      return remembered;
    }
    const rollup = await loadRollup(request.systemRef);
    return rollup?.environments.map(e => e.name);
  }

  async function badgeContent(request: BadgeRequest): Promise<BadgeContent> {
    if (request.kind === 'status') {
      const rollup = await loadRollup(request.systemRef);
      if (!rollup) {
        throw unknownSystemError(request.systemRef);
      }
      const name = environmentOf(
        request,
        rollup.environments.map(e => e.name),
      );
      const maintenance = await loadMaintenance?.(request.systemRef);
      const inMaintenance =
        maintenance !== undefined &&
        maintenance.current.length > 0 &&
        (name === undefined ||
          (maintenance.inMaintenance ?? []).some(
            pair =>
              canonicalEnvironmentName(pair.environment) ===
              request.environment,
          ));
      return statusBadge(
        rollup,
        rollup.environments.find(e => e.name === name),
        inMaintenance,
      );
    }

    if (request.kind === 'slo') {
      const objective = objectiveOfBadge(
        (await loadObjectives?.(request.systemRef)) ?? [],
        request,
      );
      if (!objective) {
        throw new NotFoundError(
          `System ${request.systemRef} has no service-level objective${
            request.objective ? ` ${request.objective}` : ''
          }${
            request.environment ? ` in environment ${request.environment}` : ''
          } that badges can show`,
        );
      }
      return sloBadge({
        systemRef: request.systemRef,
        environment: objective.environment,
        objective,
      });
    }

    const environments = await measuredEnvironments(request);
    if (!environments) {
      throw unknownSystemError(request.systemRef);
    }
    const environment = environmentOf(request, environments);
    const to = now();
    const query: BadgeMeasurementQuery = {
      systemRef: request.systemRef,
      ...(environment !== undefined && { environment }),
      from: new Date(to.getTime() - BADGE_WINDOW_MS[request.window]),
      to,
    };
    if (request.kind === 'uptime') {
      const uptime = await loadUptime(query);
      if (uptime !== undefined && !(uptime >= 0 && uptime <= 1)) {
        logger.warn(
          `Up-time of ${badgeTarget(query)} is ${uptime}, not a fraction 0..1`,
        );
      }
      return uptimeBadge({
        systemRef: request.systemRef,
        environment,
        window: request.window,
        uptime,
      });
    }
    return responseTimeBadge({
      systemRef: request.systemRef,
      environment,
      window: request.window,
      percentile: request.percentile,
      responseTimes: await loadResponseTime(query),
    });
  }

  router.get(`${BADGES_PATH}/systems/:namespace/:name`, async (req, res) => {
    const parsed = parseBadgeRequest(
      req.params,
      req.query as Record<string, unknown>,
    );
    if (!parsed.ok) {
      throw new InvalidBadgeRequestError(parsed.problems);
    }
    const { request } = parsed;
    await authorize?.(req, { systemRef: request.systemRef });

    const computed = await badgeContent(request);
    const content =
      request.label === undefined
        ? computed
        : { ...computed, label: request.label };

    let body: string;
    let contentType: string;
    if (request.format === 'json') {
      body = JSON.stringify(toShieldsEndpoint(content, request.style));
      contentType = 'application/json; charset=utf-8';
    } else {
      body = renderBadgeSvg(content, request.style);
      contentType = 'image/svg+xml; charset=utf-8';
    }
    res.setHeader('Content-Type', contentType);
    res.setHeader('Cache-Control', 'no-cache, max-age=0');
    res.setHeader(
      'ETag',
      `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
    );
    // Express answers 304 when the request's If-None-Match matches the ETag.
    res.send(body);
  });

  return router;
}

/** The system, and environment if any, a badge is of: for log lines. */
export function badgeTarget(query: BadgeMeasurementQuery): string {
  return query.environment
    ? `${query.systemRef} (${query.environment})`
    : query.systemRef;
}
