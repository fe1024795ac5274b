export { CheckForm, type CheckFormProps } from './CheckForm';
export { CheckFormDialog, type CheckFormDialogProps } from './CheckFormDialog';
export { NewCheckButton, type NewCheckButtonProps } from './NewCheckButton';
