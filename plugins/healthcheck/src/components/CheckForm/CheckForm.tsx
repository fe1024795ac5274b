import { Progress, ResponseErrorPanel } from '@backstage/core-components';
import { alertApiRef, useApi, useApiHolder } from '@backstage/core-plugin-api';
import { toastApiRef } from '@backstage/frontend-plugin-api';
import { usePermission } from '@backstage/plugin-permission-react';
import Box from '@material-ui/core/Box';
import Button from '@material-ui/core/Button';
import Checkbox from '@material-ui/core/Checkbox';
import FormControlLabel from '@material-ui/core/FormControlLabel';
import Grid from '@material-ui/core/Grid';
import TextField, { TextFieldProps } from '@material-ui/core/TextField';
import {
  CheckDetails,
  DEFAULT_CHECK_INTERVAL,
  DEFAULT_CHECK_TIMEOUT,
  healthcheckCheckUpdatePermission,
} from '@vigil/plugin-healthcheck-common';
import { FormEvent, useState } from 'react';
import useAsyncRetry from 'react-use/esm/useAsyncRetry';
import { healthcheckApiRef } from '../../api/HealthcheckApi';
import { CheckDetailsView } from './CheckDetailsView';
import {
  messageOfError,
  placeProblems,
  problemsOfError,
} from './backendProblems';
import { checkRequestOf } from './checkRequest';
import {
  CheckFormErrors,
  CheckFormField,
  CheckFormValues,
  checkFormValuesOf,
  ConditionRow,
  emptyCheckFormValues,
  EnvironmentOverrideRow,
  NO_ERRORS,
  OverrideField,
} from './formValues';
import {
  countFieldProblems,
  hasErrors,
  validateCheckForm,
} from './validateCheckForm';
import { ConditionsField } from './ConditionsField';
import { EnvironmentOverridesField } from './EnvironmentOverridesField';
import { Notice } from './Notice';
import { EntityRefsField } from './EntityRefsField';
import { useProbeTypes } from './useProbeTypes';

/**
 * Props of {@link CheckForm}.
 * @public
 */
export interface CheckFormProps {
  /**
   * The check to edit (an API check the user may change) or to show read-only
   * (a GitOps check, or one the user may not change); none to create one.
   */
  checkId?: string;
  /** Called with the stored check after a create or an update. */
  onSaved?: (check: CheckDetails) => void;
  /** Called by the Cancel (or Close) button; no button without it. */
  onCancel?: () => void;
}

/**
 * Creates or edits a check made through the API; shows a GitOps check
 * read-only, with a link to its file in Git. The backend's validation
 * problems are shown at the fields they concern.
 * @public
 */
export function CheckForm(props: CheckFormProps) {
  if (!props.checkId) {
    return (
      <CheckEditor
        mode="create"
        onSaved={props.onSaved}
        onCancel={props.onCancel}
      />
    );
  }
  return <ExistingCheck {...props} checkId={props.checkId} />;
}

function ExistingCheck(props: CheckFormProps & { checkId: string }) {
  const api = useApi(healthcheckApiRef);
  const { value, loading, error, retry } = useAsyncRetry(
    () => api.getCheck(props.checkId),
    [api, props.checkId],
  );
  const permission = usePermission({
    permission: healthcheckCheckUpdatePermission,
    resourceRef: props.checkId,
  });

  if (loading || (value?.source.kind === 'api' && permission.loading)) {
    return <Progress />;
  }
  if (error || !value) {
    return (
      <>
        <ResponseErrorPanel
          error={error ?? new Error('No such check')}
          title="Could not load the check"
        />
        <Box mt={2} display="flex" style={{ gap: 8 }}>
          <Button variant="contained" color="primary" onClick={retry}>
            Retry
          </Button>
          {props.onCancel && <Button onClick={props.onCancel}>Close</Button>}
        </Box>
      </>
    );
  }
  if (value.source.kind === 'gitops' || !permission.allowed) {
    return (
      <>
        <CheckDetailsView check={value} />
        {props.onCancel && (
          <Box mt={2} display="flex" justifyContent="flex-end">
            <Button onClick={props.onCancel}>Close</Button>
          </Box>
        )}
      </>
    );
  }
  return (
    <CheckEditor
      key={`${value.id}@${value.revision ?? 0}`}
      mode="edit"
      original={value}
      onSaved={props.onSaved}
      onCancel={props.onCancel}
    />
  );
}

function CheckEditor(props: {
  mode: 'create' | 'edit';
  original?: CheckDetails;
  onSaved?: (check: CheckDetails) => void;
  onCancel?: () => void;
}) {
  const { mode, original } = props;
  const api = useApi(healthcheckApiRef);
  const apis = useApiHolder();
  const { types } = useProbeTypes();
  const [values, setValues] = useState<CheckFormValues>(() =>
    original ? checkFormValuesOf(original) : emptyCheckFormValues(),
  );
  const [errors, setErrors] = useState<CheckFormErrors>(NO_ERRORS);
  const [submitting, setSubmitting] = useState(false);
  const [submitted, setSubmitted] = useState(false);

  const set = <K extends CheckFormField>(
    field: K,
    value: CheckFormValues[K],
  ) => {
    setValues(previous => ({ ...previous, [field]: value }));
    if (errors.fields[field]) {
      const { [field]: _dropped, ...rest } = errors.fields;
      setErrors({ ...errors, fields: rest });
    }
  };

  // A list's own problems and those of the row changed go; the rest stay
  // until the next submission.
  const setConditions = (conditions: ConditionRow[], changedKey?: string) => {
    setValues(previous => ({ ...previous, conditions }));
    setErrors(previous => {
      const { conditions: _list, ...fields } = previous.fields;
      const rows = { ...previous.conditions };
      if (changedKey) delete rows[changedKey];
      return { ...previous, fields, conditions: rows };
    });
  };

  const setOverrides = (
    environmentOverrides: EnvironmentOverrideRow[],
    changed?: { key: string; field?: OverrideField },
  ) => {
    setValues(previous => ({ ...previous, environmentOverrides }));
    setErrors(previous => {
      const { environmentOverrides: _list, ...fields } = previous.fields;
      const overrides = { ...previous.overrides };
      if (changed?.field && overrides[changed.key]) {
        const { [changed.field]: _dropped, ...rest } = overrides[changed.key];
        overrides[changed.key] = rest;
      } else if (changed && !changed.field) {
        delete overrides[changed.key];
      }
      return { ...previous, fields, overrides };
    });
  };

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    setSubmitted(true);
    const local = validateCheckForm(values, mode, original);
    if (hasErrors(local)) {
      setErrors(local);
      return;
    }
    setErrors(NO_ERRORS);
    setSubmitting(true);
    let saved: CheckDetails;
    try {
      saved =
        mode === 'create'
          ? await api.createCheck(checkRequestOf(values))
          : await api.updateCheck(original!.id, {
              ...checkRequestOf(values, original),
              revision: original!.revision,
            });
    } catch (error) {
      const problems = problemsOfError(error);
      setErrors(
        problems
          ? placeProblems(problems, values)
          : { ...NO_ERRORS, top: [messageOfError(error)] },
      );
      setSubmitting(false);
      return;
    }
    setSubmitting(false);
    notifySaved(
      apis,
      `Check ${saved.title ?? saved.id} ${
        mode === 'create' ? 'created' : 'saved'
      }`,
    );
    props.onSaved?.(saved);
  };

  const field = (
    name: Exclude<
      CheckFormField,
      | 'systems'
      | 'components'
      | 'paused'
      | 'conditions'
      | 'environmentOverrides'
    >,
    label: string,
    extra: Partial<TextFieldProps> & { hint?: string } = {},
  ) => {
    const { hint, ...rest } = extra;
    const messages = errors.fields[name];
    return (
      <TextField
        id={`check-form-${name}`}
        label={label}
        fullWidth
        variant="outlined"
        margin="dense"
        value={values[name]}
        onChange={event => set(name, event.target.value)}
        error={!!messages}
        helperText={messages ? messages.join(' ') : hint}
        disabled={submitting}
        {...rest}
      />
    );
  };

  const fieldErrorCount = countFieldProblems(errors);
  const typeOptions =
    types.includes(values.type) || !values.type
      ? types
      : [values.type, ...types];

  return (
    <form noValidate onSubmit={onSubmit} aria-label="Check">
      {submitted && (errors.top.length > 0 || fieldErrorCount > 0) && (
        <Notice
          severity="error"
          title={
            mode === 'create'
              ? 'The check was not created'
              : 'The check was not saved'
          }
        >
          {errors.top.length > 0 && (
            <ul style={{ margin: 0, paddingLeft: 16 }}>
              {errors.top.map((message, index) => (
                <li key={index} style={{ whiteSpace: 'pre-wrap' }}>
                  {message}
                </li>
              ))}
            </ul>
          )}
          {fieldErrorCount > 0 &&
            `${
              fieldErrorCount === 1
                ? 'One problem is'
                : `${fieldErrorCount} problems are`
            } shown at the field${fieldErrorCount === 1 ? '' : 's'} below.`}
        </Notice>
      )}
      <Grid container spacing={2}>
        <Grid item xs={12} sm={6}>
          {mode === 'create'
            ? field('id', 'ID', {
                hint: 'Lower-case letters, digits and dashes, such as payments-http; derived from the title when empty',
              })
            : field('id', 'ID', {
                disabled: true,
                hint: 'An ID cannot change',
              })}
        </Grid>
        <Grid item xs={12} sm={6}>
          {field('title', 'Title')}
        </Grid>
        <Grid item xs={12} sm={3}>
          {field('type', 'Type', {
            select: true,
            required: true,
            SelectProps: { native: true },
            children: typeOptions.map(type => (
              <option key={type} value={type}>
                {type}
              </option>
            )),
          })}
        </Grid>
        <Grid item xs={12} sm={9}>
          {field('target', 'Target', {
            required: true,
            hint: 'A URL or host:port; {{ system.name }} and {{ environment.name }} are filled in per system and environment',
          })}
        </Grid>
        <Grid item xs={6} sm={3}>
          {field('interval', 'Interval', {
            placeholder: DEFAULT_CHECK_INTERVAL,
            hint: `Such as 30s; ${DEFAULT_CHECK_INTERVAL} when empty`,
          })}
        </Grid>
        <Grid item xs={6} sm={3}>
          {field('timeout', 'Timeout', {
            placeholder: DEFAULT_CHECK_TIMEOUT,
            hint: `At most 60s and the interval; ${DEFAULT_CHECK_TIMEOUT} (or the interval, if shorter) when empty`,
          })}
        </Grid>
        <Grid item xs={6} sm={3}>
          {field('thresholdFailure', 'Failure threshold', {
            inputProps: { inputMode: 'numeric' },
            hint: 'Failed runs in a row to go down',
          })}
        </Grid>
        <Grid item xs={6} sm={3}>
          {field('thresholdSuccess', 'Success threshold', {
            inputProps: { inputMode: 'numeric' },
            hint: 'Passing runs in a row to recover',
          })}
        </Grid>
        <Grid item xs={12}>
          <ConditionsField
            rows={values.conditions}
            onChange={setConditions}
            errors={errors.conditions}
            listErrors={errors.fields.conditions}
            disabled={submitting}
          />
        </Grid>
        <Grid item xs={12}>
          <EntityRefsField
            id="check-form-systems"
            kind="System"
            label="Systems"
            listLabel="Assigned systems"
            hint="Type to find a system, Enter to add it; several may be pasted, separated by commas"
            required
            value={values.systems}
            onChange={systems => set('systems', systems)}
            errors={errors.fields.systems}
            disabled={submitting}
          />
        </Grid>
        <Grid item xs={12}>
          <EntityRefsField
            id="check-form-components"
            kind="Component"
            label="Components"
            listLabel="Targeted components"
            hint="Optional: the components this check probes; their pages show it, and notifications blame an unhealthy upstream system through them"
            value={values.components}
            onChange={components => set('components', components)}
            errors={errors.fields.components}
            disabled={submitting}
          />
        </Grid>
        <Grid item xs={12} sm={6}>
          {field('environments', 'Environments', {
            hint: 'Comma-separated; empty for every environment of each system',
          })}
        </Grid>
        <Grid item xs={12} sm={6}>
          {field('owner', 'Owner', {
            hint: 'A group or user, such as group:default/payments-team',
          })}
        </Grid>
        <Grid item xs={12}>
          {field('config', 'Probe config (JSON)', {
            multiline: true,
            minRows: 2,
            hint: 'The probe type’s own fields, such as { "method": "HEAD" }; empty for none',
            inputProps: { style: { fontFamily: 'monospace' } },
          })}
        </Grid>
        <Grid item xs={12}>
          <EnvironmentOverridesField
            rows={values.environmentOverrides}
            onChange={setOverrides}
            errors={errors.overrides}
            listErrors={errors.fields.environmentOverrides}
            checkTarget={values.target}
            disabled={submitting}
          />
        </Grid>
        <Grid item xs={12}>
          <FormControlLabel
            control={
              <Checkbox
                checked={values.paused}
                onChange={event => set('paused', event.target.checked)}
                disabled={submitting}
                color="primary"
              />
            }
            label="Paused (keeps the definition, runs nowhere)"
          />
          {errors.fields.paused && (
            <Box color="error.main" fontSize="0.75rem">
              {errors.fields.paused.join(' ')}
            </Box>
          )}
        </Grid>
      </Grid>
      <Box mt={2} display="flex" justifyContent="flex-end" style={{ gap: 8 }}>
        {props.onCancel && (
          <Button onClick={props.onCancel} disabled={submitting}>
            Cancel
          </Button>
        )}
        <Button
          type="submit"
          variant="contained"
          color="primary"
          disabled={submitting}
        >
          {mode === 'create' ? 'Create check' : 'Save changes'}
        </Button>
      </Box>
    </form>
  );
}

/** A toast where the app has them (new frontend system), else an alert. */
function notifySaved(apis: ReturnType<typeof useApiHolder>, message: string) {
  const toastApi = apis.get(toastApiRef);
  if (toastApi) {
    toastApi.post({ title: message, status: 'success', timeout: 5000 });
    return;
  }
  apis
    .get(alertApiRef)
    ?.post({ message, severity: 'success', display: 'transient' });
}
