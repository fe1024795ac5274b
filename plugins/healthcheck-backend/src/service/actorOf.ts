import type {
  BackstageCredentials,
  BackstageServicePrincipal,
  BackstageUserPrincipal,
} from '@backstage/backend-plugin-api';

/**
 * Who is recorded as having made, changed or run a check: the user's entity
 * ref, or the service's subject.
 * @internal
 */
export function actorOf(
  credentials: BackstageCredentials<
    BackstageUserPrincipal | BackstageServicePrincipal
  >,
): string {
  const { principal } = credentials;
  return principal.type === 'user'
    ? principal.userEntityRef
    : principal.subject;
}
