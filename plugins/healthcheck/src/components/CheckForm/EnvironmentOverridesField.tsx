import Box from '@material-ui/core/Box';
import Button from '@material-ui/core/Button';
import FormControl from '@material-ui/core/FormControl';
import FormHelperText from '@material-ui/core/FormHelperText';
import FormLabel from '@material-ui/core/FormLabel';
import Grid from '@material-ui/core/Grid';
import TextField, { TextFieldProps } from '@material-ui/core/TextField';
import { useEffect, useRef, useState } from 'react';
import {
  CheckFormErrors,
  EnvironmentOverrideRow,
  newEnvironmentOverrideRow,
  OverrideField,
} from './formValues';

/** @internal */
export interface EnvironmentOverridesFieldProps {
  rows: EnvironmentOverrideRow[];
  /**
   * With the row that was edited (and its field) or removed; none for an
   * added one.
   */
  onChange(
    rows: EnvironmentOverrideRow[],
    changed?: { key: string; field?: OverrideField },
  ): void;
  /** By row key, then field. */
  errors: CheckFormErrors['overrides'];
  /** Problems of the overrides as a whole. */
  listErrors?: string[];
  /** The check's own target, shown where an override leaves it. */
  checkTarget: string;
  disabled?: boolean;
}

/**
 * What a check does differently in some environments: per environment
 * another target, and probe config merged over the check's. (The spec keeps
 * timing and conditions per check.)
 * @internal
 */
export function EnvironmentOverridesField(
  props: EnvironmentOverridesFieldProps,
) {
  const { rows, onChange, errors, listErrors, checkTarget, disabled } = props;
  // Focus goes to a row the user adds, not to the rows the form opens with.
  const [addedKey, setAddedKey] = useState<string>();
  const addedInput = useRef<HTMLInputElement>(null);
  useEffect(() => addedInput.current?.focus(), [addedKey]);

  const field = (
    row: EnvironmentOverrideRow,
    name: OverrideField,
    label: string,
    extra: Partial<TextFieldProps> & { hint?: string } = {},
  ) => {
    const { hint, ...rest } = extra;
    const messages = errors[row.key]?.[name];
    return (
      <TextField
        id={`check-form-override-${row.key}-${name}`}
        label={label}
        fullWidth
        variant="outlined"
        margin="dense"
        value={row[name]}
        onChange={event =>
          onChange(
            rows.map(r =>
              r.key === row.key ? { ...r, [name]: event.target.value } : r,
            ),
            { key: row.key, field: name },
          )
        }
        error={!!messages}
        helperText={messages ? messages.join(' ') : hint}
        disabled={disabled}
        {...rest}
      />
    );
  };

  return (
    <FormControl component="fieldset" fullWidth margin="dense">
      <FormLabel component="legend">Environment overrides</FormLabel>
      <FormHelperText>
        Another target or probe config in one environment; the rest of the check
        applies as it is. Environment names are compared without regard to case.
      </FormHelperText>
      {rows.map((row, index) => (
        <Box
          key={row.key}
          role="group"
          aria-label={`Environment override ${index + 1}`}
          mt={1}
          p={1}
          border={1}
          borderColor="divider"
          borderRadius={4}
        >
          <Grid container spacing={1}>
            <Grid item xs={12} sm={4}>
              {field(row, 'environment', 'Environment', {
                required: true,
                inputRef: row.key === addedKey ? addedInput : undefined,
                hint: 'Such as production',
              })}
            </Grid>
            <Grid item xs={12} sm={8}>
              {field(row, 'target', 'Target', {
                placeholder: checkTarget,
                hint: 'The check’s target when empty; may use the same placeholders',
              })}
            </Grid>
            <Grid item xs={12}>
              {field(row, 'config', 'Probe config patch (JSON)', {
                multiline: true,
                minRows: 2,
                hint: 'Merged over the check’s probe config: objects merge key by key, null removes a key; empty for none',
                inputProps: { style: { fontFamily: 'monospace' } },
              })}
            </Grid>
          </Grid>
          <Box display="flex" justifyContent="flex-end">
            <Button
              size="small"
              onClick={() =>
                onChange(
                  rows.filter(r => r.key !== row.key),
                  { key: row.key },
                )
              }
              disabled={disabled}
              aria-label={`Remove environment override ${index + 1}`}
            >
              Remove
            </Button>
          </Box>
        </Box>
      ))}
      {listErrors && (
        <FormHelperText error>{listErrors.join(' ')}</FormHelperText>
      )}
      <Box mt={1}>
        <Button
          color="primary"
          disabled={disabled}
          onClick={() => {
            const row = newEnvironmentOverrideRow();
            setAddedKey(row.key);
            onChange([...rows, row]);
          }}
        >
          Add environment override
        </Button>
      </Box>
    </FormControl>
  );
}
