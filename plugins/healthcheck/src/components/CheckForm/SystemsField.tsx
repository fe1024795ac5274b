import { stringifyEntityRef } from '@backstage/catalog-model';
import { useApi } from '@backstage/core-plugin-api';
import { catalogApiRef } from '@backstage/plugin-catalog-react';
import Box from '@material-ui/core/Box';
import Chip from '@material-ui/core/Chip';
import TextField from '@material-ui/core/TextField';
import { KeyboardEvent, useState } from 'react';
import useAsync from 'react-use/esm/useAsync';
import { splitList } from './checkFormModel';

/** @internal */
export interface SystemsFieldProps {
  id: string;
  value: string[];
  onChange(value: string[]): void;
  errors?: string[];
  disabled?: boolean;
}

/**
 * The systems a check is assigned to: chips, and an input that suggests the
 * catalog's System entities (a refs typed or pasted with commas is taken as
 * it is; the backend says when one is no system).
 * @internal
 */
export function SystemsField(props: SystemsFieldProps) {
  const { id, value, onChange, errors, disabled } = props;
  const catalogApi = useApi(catalogApiRef);
  const [text, setText] = useState('');
  const { value: systems } = useAsync(async () => {
    const response = await catalogApi.getEntities({
      filter: { kind: 'System' },
      fields: ['kind', 'metadata.name', 'metadata.namespace', 'metadata.title'],
    });
    return response.items
      .map(entity => ({
        ref: stringifyEntityRef(entity),
        title: entity.metadata.title,
      }))
      .sort((a, b) => a.ref.localeCompare(b.ref));
  }, [catalogApi]);

  const add = (input: string) => {
    const refs = splitList(input).filter(ref => !value.includes(ref));
    if (refs.length > 0) {
      onChange([...value, ...refs]);
    }
    setText('');
  };

  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'Enter' || event.key === ',') {
      event.preventDefault();
      add(text);
    } else if (event.key === 'Backspace' && !text && value.length > 0) {
      onChange(value.slice(0, -1));
    }
  };

  const listId = `${id}-options`;
  const errorText = errors?.join(' ');
  return (
    <Box>
      {value.length > 0 && (
        <Box
          display="flex"
          flexWrap="wrap"
          style={{ gap: 4 }}
          mb={1}
          aria-label="Assigned systems"
          role="list"
        >
          {value.map(ref => (
            <Chip
              key={ref}
              role="listitem"
              label={ref}
              size="small"
              disabled={disabled}
              onDelete={
                disabled
                  ? undefined
                  : () => onChange(value.filter(v => v !== ref))
              }
              aria-label={ref}
            />
          ))}
        </Box>
      )}
      <TextField
        id={id}
        label="Systems"
        required
        fullWidth
        variant="outlined"
        margin="dense"
        value={text}
        disabled={disabled}
        onChange={event => {
          const next = event.target.value;
          // A value picked from the suggestions (not typed) is added at once.
          const { inputType } = event.nativeEvent as InputEvent;
          const picked = !inputType || inputType === 'insertReplacementText';
          if (picked && systems?.some(system => system.ref === next)) {
            add(next);
          } else {
            setText(next);
          }
        }}
        onKeyDown={onKeyDown}
        onBlur={() => text.trim() && add(text)}
        error={!!errorText}
        helperText={
          errorText ??
          'Type to find a system, Enter to add it; several may be pasted, separated by commas'
        }
        inputProps={{ list: listId }}
      />
      <datalist id={listId}>
        {systems
          ?.filter(system => !value.includes(system.ref))
          .map(system => (
            <option key={system.ref} value={system.ref}>
              {system.title ?? system.ref}
            </option>
          ))}
      </datalist>
    </Box>
  );
}
