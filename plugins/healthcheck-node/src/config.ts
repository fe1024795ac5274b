import { Config } from '@backstage/config';
import { InputError } from '@backstage/errors';
import { parseDuration } from '@vigil/plugin-healthcheck-common';

/**
 * Reads a duration such as `30s` or `5m` from the config, in ms.
 * @throws InputError naming the key, the value and the problem.
 * @public
 */
export function readConfigDuration(
  config: Config,
  path: string,
): number | undefined {
  const text = config.getOptionalString(path);
  if (text === undefined) {
    return undefined;
  }
  try {
    return parseDuration(text);
  } catch (error) {
    throw new InputError(
      `Invalid ${path} '${text}': ${(error as Error).message}`,
    );
  }
}
