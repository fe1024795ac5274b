import Box from '@material-ui/core/Box';
import Button from '@material-ui/core/Button';
import FormControl from '@material-ui/core/FormControl';
import FormHelperText from '@material-ui/core/FormHelperText';
import FormLabel from '@material-ui/core/FormLabel';
import TextField from '@material-ui/core/TextField';
import { ConditionSeverity } from '@vigil/plugin-healthcheck-common';
import { useEffect, useRef, useState } from 'react';
import { ConditionRow, newConditionRow } from './formValues';

/** @internal */
export interface ConditionsFieldProps {
  rows: ConditionRow[];
  /** With the key of the row that was edited or removed, none for an added one. */
  onChange(rows: ConditionRow[], changedKey?: string): void;
  /** By row key. */
  errors: Record<string, string[]>;
  /** Problems of the conditions as a whole. */
  listErrors?: string[];
  disabled?: boolean;
}

const SEVERITIES: Array<{ value: ConditionSeverity; label: string }> = [
  { value: 'unhealthy', label: 'Unhealthy' },
  { value: 'degraded', label: 'Degraded' },
];

/**
 * A check's conditions: one row each, with the text and the severity a
 * failure of it has; rows left blank are not sent.
 * @internal
 */
export function ConditionsField(props: ConditionsFieldProps) {
  const { rows, onChange, errors, listErrors, disabled } = props;
  // Focus goes to a row the user adds, not to the rows the form opens with.
  const [addedKey, setAddedKey] = useState<string>();
  const addedInput = useRef<HTMLInputElement>(null);
  useEffect(() => addedInput.current?.focus(), [addedKey]);

  const update = (key: string, change: Partial<ConditionRow>) =>
    onChange(
      rows.map(row => (row.key === key ? { ...row, ...change } : row)),
      key,
    );

  return (
    <FormControl component="fieldset" fullWidth margin="dense">
      <FormLabel component="legend">Conditions</FormLabel>
      <FormHelperText>
        Such as [STATUS] == 200 or [RESPONSE_TIME] &lt; 500. A run fails when an
        unhealthy one fails, and is degraded when only degraded ones fail.
      </FormHelperText>
      {rows.map((row, index) => {
        const messages = errors[row.key];
        const number = index + 1;
        return (
          <Box
            key={row.key}
            display="flex"
            alignItems="flex-start"
            style={{ gap: 8 }}
          >
            <TextField
              id={`check-form-condition-${row.key}`}
              label={`Condition ${number}`}
              fullWidth
              variant="outlined"
              margin="dense"
              value={row.condition}
              onChange={event =>
                update(row.key, { condition: event.target.value })
              }
              error={!!messages}
              helperText={messages?.join(' ')}
              disabled={disabled}
              inputRef={row.key === addedKey ? addedInput : undefined}
              inputProps={{ style: { fontFamily: 'monospace' } }}
            />
            <TextField
              id={`check-form-condition-${row.key}-severity`}
              label="Severity"
              select
              variant="outlined"
              margin="dense"
              style={{ minWidth: 140 }}
              value={row.severity}
              onChange={event =>
                update(row.key, {
                  severity: event.target.value as ConditionSeverity,
                })
              }
              disabled={disabled}
              SelectProps={{ native: true }}
              inputProps={{ 'aria-label': `Severity of condition ${number}` }}
            >
              {SEVERITIES.map(severity => (
                <option key={severity.value} value={severity.value}>
                  {severity.label}
                </option>
              ))}
            </TextField>
            <Box pt={1.5}>
              <Button
                onClick={() =>
                  onChange(
                    rows.filter(r => r.key !== row.key),
                    row.key,
                  )
                }
                disabled={disabled}
                aria-label={`Remove condition ${number}`}
              >
                Remove
              </Button>
            </Box>
          </Box>
        );
      })}
      {listErrors && (
        <FormHelperText error>{listErrors.join(' ')}</FormHelperText>
      )}
      <Box>
        <Button
          color="primary"
          disabled={disabled}
          onClick={() => {
            const row = newConditionRow();
            setAddedKey(row.key);
            onChange([...rows, row]);
          }}
        >
          Add condition
        </Button>
      </Box>
    </FormControl>
  );
}
