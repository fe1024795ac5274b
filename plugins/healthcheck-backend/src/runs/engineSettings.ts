import type { LoggerService } from '@backstage/backend-plugin-api';
import { Config } from '@backstage/config';
import {
  DeprecatedDurationKey,
  readConfigDuration,
} from '@vigil/plugin-healthcheck-node';
import type { AdmissionOptions } from '../admission';

/**
 * What the probing machinery of an instance takes from the config; unset
 * fields keep the defaults of the parts they configure.
 * @internal
 */
export interface EngineSettings {
  /** `healthcheck.scheduler.refreshInterval`. */
  refreshIntervalMs?: number;
  /** `healthcheck.scheduler.coalesceWindow`. */
  coalesceWindowMs?: number;
  /** `healthcheck.admission`. */
  admission: Partial<AdmissionOptions>;
}

const ADMISSION_COUNTS = [
  'concurrency',
  'laneCapacity',
  'suspectAfterRuns',
  'recoveryProbeEvery',
  'endpointShare',
] as const;

/**
 * Reads `healthcheck.scheduler` and `healthcheck.admission`. The durations
 * `coalesceWindow` and `timeoutFloor` replace the numbers of milliseconds
 * `coalesceWindowMs` and `timeoutFloorMs`, which still work with a
 * deprecation warning; the admission options are judged where they are
 * resolved.
 * @throws InputError naming the key of a bad duration.
 * @internal
 */
export function readEngineSettings(
  config: Config,
  logger: Pick<LoggerService, 'warn'>,
): EngineSettings {
  return {
    refreshIntervalMs: readConfigDuration(
      config,
      'healthcheck.scheduler.refreshInterval',
    ),
    coalesceWindowMs: readConfigDuration(
      config,
      'healthcheck.scheduler.coalesceWindow',
      {
        replaces: deprecatedMilliseconds(
          'healthcheck.scheduler.coalesceWindowMs',
        ),
        logger,
      },
    ),
    admission: readAdmissionOptions(config, logger),
  };
}

function readAdmissionOptions(
  config: Config,
  logger: Pick<LoggerService, 'warn'>,
): Partial<AdmissionOptions> {
  const options: {
    -readonly [K in keyof AdmissionOptions]?: AdmissionOptions[K];
  } = {};
  for (const key of ADMISSION_COUNTS) {
    const value = config.getOptionalNumber(`healthcheck.admission.${key}`);
    if (value !== undefined) {
      options[key] = value;
    }
  }
  const timeoutFloorMs = readConfigDuration(
    config,
    'healthcheck.admission.timeoutFloor',
    {
      replaces: deprecatedMilliseconds('healthcheck.admission.timeoutFloorMs'),
      logger,
    },
  );
  if (timeoutFloorMs !== undefined) {
    options.timeoutFloorMs = timeoutFloorMs;
  }
  return options;
}

/** An old key that held a number of milliseconds, read as it always was. */
function deprecatedMilliseconds(key: string): DeprecatedDurationKey {
  return { key, readMs: (config, oldKey) => config.getOptionalNumber(oldKey) };
}
