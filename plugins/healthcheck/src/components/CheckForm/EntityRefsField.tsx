import { stringifyEntityRef } from '@backstage/catalog-model';
import { useApi } from '@backstage/core-plugin-api';
import { catalogApiRef } from '@backstage/plugin-catalog-react';
import Box from '@material-ui/core/Box';
import Chip from '@material-ui/core/Chip';
import TextField from '@material-ui/core/TextField';
import { KeyboardEvent, useState } from 'react';
import useAsync from 'react-use/esm/useAsync';
import { splitList } from './formValues';

/** @internal */
export interface EntityRefsFieldProps {
  id: string;
  /** The catalog kind suggested, such as `System`. */
  kind: 'System' | 'Component';
  label: string;
  /** Names the list of chips for screen readers, such as "Assigned systems". */
  listLabel: string;
  hint: string;
  required?: boolean;
  value: string[];
  onChange(value: string[]): void;
  errors?: string[];
  disabled?: boolean;
}

/**
 * Entity refs of one kind, such as the systems a check is assigned to:
 * chips, and an input that suggests the catalog's entities of that kind (a
 * ref typed or pasted with commas is taken as it is; the backend says when
 * one is not of the kind).
 * @internal
 */
export function EntityRefsField(props: EntityRefsFieldProps) {
  const { id, kind, label, listLabel, hint, required } = props;
  const { value, onChange, errors, disabled } = props;
  const catalogApi = useApi(catalogApiRef);
  const [text, setText] = useState('');
  const { value: suggestions } = useAsync(async () => {
    const response = await catalogApi.getEntities({
      filter: { kind },
      fields: ['kind', 'metadata.name', 'metadata.namespace', 'metadata.title'],
    });
    return response.items
      .map(entity => ({
        ref: stringifyEntityRef(entity),
        title: entity.metadata.title,
      }))
      .sort((a, b) => a.ref.localeCompare(b.ref));
  }, [catalogApi, kind]);

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
          aria-label={listLabel}
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
        label={label}
        required={required}
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
          if (picked && suggestions?.some(entity => entity.ref === next)) {
            add(next);
          } else {
            setText(next);
          }
        }}
        onKeyDown={onKeyDown}
        onBlur={() => text.trim() && add(text)}
        error={!!errorText}
        helperText={errorText ?? hint}
        inputProps={{ list: listId }}
      />
      <datalist id={listId}>
        {suggestions
          ?.filter(entity => !value.includes(entity.ref))
          .map(entity => (
            <option key={entity.ref} value={entity.ref}>
              {entity.title ?? entity.ref}
            </option>
          ))}
      </datalist>
    </Box>
  );
}
