import { usePermission } from '@backstage/plugin-permission-react';
import Button from '@material-ui/core/Button';
import { RiAddLine } from '@remixicon/react';
import {
  CheckDetails,
  healthcheckCheckCreatePermission,
} from '@vigil/plugin-healthcheck-common';
import { useState } from 'react';
import { CheckFormDialog } from './CheckFormDialog';

/**
 * Props of {@link NewCheckButton}.
 * @public
 */
export interface NewCheckButtonProps {
  /** Called with the check after it was created. */
  onCreated?: (check: CheckDetails) => void;
}

/**
 * "New check": opens {@link CheckFormDialog} to create a check through the
 * API. Renders nothing for users without `healthcheck.check.create`.
 * @public
 */
export function NewCheckButton(props: NewCheckButtonProps) {
  const { allowed } = usePermission({
    permission: healthcheckCheckCreatePermission,
  });
  const [open, setOpen] = useState(false);
  if (!allowed) {
    return null;
  }
  return (
    <>
      <Button
        variant="contained"
        color="primary"
        startIcon={<RiAddLine size={18} aria-hidden />}
        onClick={() => setOpen(true)}
      >
        New check
      </Button>
      <CheckFormDialog
        open={open}
        onClose={() => setOpen(false)}
        onSaved={props.onCreated}
      />
    </>
  );
}
