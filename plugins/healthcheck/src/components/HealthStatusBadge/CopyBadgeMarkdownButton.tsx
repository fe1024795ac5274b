import { alertApiRef, useApi } from '@backstage/core-plugin-api';
import { useEntity } from '@backstage/plugin-catalog-react';
import { ButtonIcon, Tooltip, TooltipTrigger } from '@backstage/ui';
import { RiFileCopyLine } from '@remixicon/react';
import { useCallback } from 'react';
import useAsync from 'react-use/esm/useAsync';
import { healthcheckApiRef } from '../../api/HealthcheckApi';
import { systemRefOfEntity } from '../../status';
import { shortRef } from './shortRef';

/** `![<name> health](<url>)`, with the brackets of the name escaped. */
export function badgeMarkdown(name: string, badgeUrl: string): string {
  return `![${name.replace(/[[\]]/g, '\\$&')} health](${badgeUrl})`;
}

/**
 * Copies the Markdown of a system's badge (a README image that the backend
 * serves as SVG) to the clipboard, and says so. The URL is fetched ahead, so
 * the copy happens right in the click, as browsers require.
 * @public
 */
export function useCopyBadgeMarkdown(
  systemRef: string | undefined,
  name: string,
): { copyBadgeMarkdown: () => Promise<void>; ready: boolean } {
  const api = useApi(healthcheckApiRef);
  const alertApi = useApi(alertApiRef);
  const { value: badgeUrl } = useAsync(
    async () => (systemRef ? await api.badgeUrl(systemRef) : undefined),
    [api, systemRef],
  );

  const copyBadgeMarkdown = useCallback(async () => {
    if (!badgeUrl) {
      return;
    }
    try {
      await navigator.clipboard.writeText(badgeMarkdown(name, badgeUrl));
      alertApi.post({
        message: `Copied the Markdown of the ${name} health badge`,
        severity: 'success',
        display: 'transient',
      });
    } catch (error) {
      alertApi.post({
        message: `Could not copy the badge Markdown: ${error}`,
        severity: 'error',
      });
    }
  }, [alertApi, badgeUrl, name]);

  return { copyBadgeMarkdown, ready: badgeUrl !== undefined };
}

/**
 * {@link useCopyBadgeMarkdown} for the current entity's system (a System, or
 * the system of a Component or Resource), named after the system. For an
 * entity icon link; `ready` is false for an entity without a system.
 * @public
 */
export function useCopyEntityBadgeMarkdown(): {
  copyBadgeMarkdown: () => Promise<void>;
  ready: boolean;
} {
  const { entity } = useEntity();
  const systemRef = systemRefOfEntity(entity);
  return useCopyBadgeMarkdown(
    systemRef,
    systemRef ? shortRef(systemRef, 'system') : '',
  );
}

/**
 * Props of {@link CopyBadgeMarkdownButton}.
 * @public
 */
export interface CopyBadgeMarkdownButtonProps {
  /** The system whose badge it is, `system:default/payments`. */
  systemRef: string;
  /** The name in the image's alt text, e.g. the system's title. */
  name: string;
}

/**
 * A small button that copies `![<name> health](<badge SVG URL>)`.
 * @public
 */
export function CopyBadgeMarkdownButton(props: CopyBadgeMarkdownButtonProps) {
  const { copyBadgeMarkdown, ready } = useCopyBadgeMarkdown(
    props.systemRef,
    props.name,
  );
  return (
    <TooltipTrigger>
      <ButtonIcon
        aria-label="Copy badge Markdown"
        icon={<RiFileCopyLine />}
        size="small"
        variant="tertiary"
        isDisabled={!ready}
        onPress={copyBadgeMarkdown}
      />
      <Tooltip>Copy badge Markdown for a README</Tooltip>
    </TooltipTrigger>
  );
}
