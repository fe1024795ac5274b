import Dialog from '@material-ui/core/Dialog';
import DialogContent from '@material-ui/core/DialogContent';
import DialogTitle from '@material-ui/core/DialogTitle';
import { CheckDetails } from '@vigil/plugin-healthcheck-common';
import { CheckForm } from './CheckForm';

/**
 * Props of {@link CheckFormDialog}.
 * @public
 */
export interface CheckFormDialogProps {
  open: boolean;
  /** The check to edit or view; none to create one. */
  checkId?: string;
  /** Called on Cancel, Close, Escape and after a save (after `onSaved`). */
  onClose: () => void;
  onSaved?: (check: CheckDetails) => void;
}

/**
 * {@link CheckForm} in a dialog: "New health check", or an existing check to
 * edit (API checks) or view (GitOps checks, edited in Git).
 * @public
 */
export function CheckFormDialog(props: CheckFormDialogProps) {
  const { open, checkId, onClose, onSaved } = props;
  const titleId = 'healthcheck-check-form-dialog-title';
  return (
    <Dialog
      open={open}
      onClose={onClose}
      fullWidth
      maxWidth="md"
      aria-labelledby={titleId}
    >
      <DialogTitle id={titleId}>
        {checkId ? `Check ${checkId}` : 'New health check'}
      </DialogTitle>
      <DialogContent>
        {open && (
          <CheckForm
            checkId={checkId}
            onCancel={onClose}
            onSaved={check => {
              onSaved?.(check);
              onClose();
            }}
          />
        )}
      </DialogContent>
    </Dialog>
  );
}
