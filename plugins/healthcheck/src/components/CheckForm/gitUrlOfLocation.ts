/**
 * The address of a GitOps check's file, from its source location
 * (`url:https://…`); `undefined` for a location that is no web address.
 * @internal
 */
export function gitUrlOfLocation(location?: string): string | undefined {
  if (!location) {
    return undefined;
  }
  const url = location.replace(/^url:/, '');
  return /^https?:\/\//.test(url) ? url : undefined;
}
