import type { ReactNode } from 'react';
import { useNavigate } from 'react-router';
import Form from 'react-bootstrap/Form';
import { zodResolver } from '@hookform/resolvers/zod';
import type { UseMutationResult, UseQueryResult } from '@tanstack/react-query';
import {
  FormProvider,
  get,
  useForm,
  type DefaultValues,
  type FieldValues,
  type Path,
  type Resolver,
  type UseFormReturn,
} from 'react-hook-form';
import type { z } from 'zod';
import { ApiError, errorMessage } from '../lib/api-error.ts';
import type { Entity, UpdateVariables } from '../lib/resource.ts';
import type { ResourcePaths } from '../lib/resource-paths.ts';
import { useDialogs } from './dialog-host.tsx';
import { LinkButton } from './link-button.tsx';
import { ErrorBox } from './error-box.tsx';
import { LoadingSpinner } from './loading-spinner.tsx';
import { SubmitButton } from './submit-button.tsx';
import { PageHeader } from './page-header.tsx';
import { useToasts } from './toasts.tsx';
import { useUnsavedChanges } from './use-unsaved-changes.ts';
import { useForbiddenDialog } from './use-forbidden-dialog.ts';

/** The hooks FormView needs; `createResourceHooks` provides them. */
export interface FormResource<TItem extends Entity, TInput> {
  useItem: (id: string | undefined) => UseQueryResult<TItem, Error>;
  useCreate: () => UseMutationResult<TItem, ApiError, TInput>;
  useUpdate: () => UseMutationResult<TItem, ApiError, UpdateVariables<TInput>>;
  /** The resource's URL name ('brands'); the edit page's History link filters the audit log by it. */
  resource?: string;
  /** The second document's fallbacks (see ResourceOptions). */
  fallbacks?: { load?: string };
}

export interface FormRenderContext<TItem, TValues extends FieldValues> {
  /** The loaded item when editing. */
  item?: TItem;
  form: UseFormReturn<TValues, unknown, FieldValues>;
}

export interface FormViewProps<TItem extends Entity, TValues extends FieldValues, TInput> {
  /** "Brand": titles ("Create Brand", "Edit Brand"), toasts and the Delete link. */
  entity: string;
  resource: FormResource<TItem, TInput>;
  /** The contract's input schema: form values in, API input out. */
  schema: z.ZodType<TInput, TValues>;
  /** Set when editing. */
  id?: string;
  /** Values of a new item. */
  defaultValues: DefaultValues<TValues>;
  /** Values of a loaded item. */
  toValues: (item: TItem) => DefaultValues<TValues>;
  paths: Pick<ResourcePaths, 'edit'> & Partial<Pick<ResourcePaths, 'list' | 'delete'>>;
  /** Omit the Delete link (e.g. items that cannot be deleted). */
  hideDelete?: boolean;
  submitLabel?: string;
  /** Hide the submit button (e.g. while a read-only tab of the form is open). */
  hideSubmit?: boolean;
  /** The edit page's title when not "Edit <entity>" (e.g. a read-only tab, which edits nothing). */
  editTitle?: string;
  /** Extra links or buttons in the edit page's header. */
  actions?: (item: TItem) => ReactNode;
  /** The audit log entity of the History link; defaults to `resource.resource`. `false` hides the link. */
  history?: string | false;
  children: ReactNode | ((context: FormRenderContext<TItem, TValues>) => ReactNode);
}

/**
 * Create and edit screens of a resource. Create: POST, toast "<Entity> created successfully", go to the edit route.
 * Edit: PATCH (PUT for the second document's resources), toast "<Entity> saved successfully". Server field errors land on inputs, others in the Error dialog.
 */
export function FormView<TItem extends Entity, TValues extends FieldValues, TInput>(
  props: FormViewProps<TItem, TValues, TInput>,
) {
  if (props.id) return <EditLoader {...props} id={props.id} />;
  return <FormBody {...props} />;
}

function EditLoader<TItem extends Entity, TValues extends FieldValues, TInput>(
  props: FormViewProps<TItem, TValues, TInput> & { id: string },
) {
  const query = props.resource.useItem(props.id);
  useForbiddenDialog(query.error);
  if (query.isPending) {
    return (
      <>
        <FormTitle {...props} />
        <LoadingSpinner />
      </>
    );
  }
  if (query.isError) {
    return (
      <>
        <FormTitle {...props} />
        {props.resource.fallbacks?.load ? (
          // The second document's screens: the server's message, or its fallback "Failed to fetch data".
          <ErrorBox message={errorMessage(query.error)} onRefresh={() => void query.refetch()} />
        ) : (
          <ErrorBox detail={errorMessage(query.error)} onRefresh={() => void query.refetch()} />
        )}
      </>
    );
  }
  return <FormBody key={props.id} {...props} item={query.data} />;
}

/** The audit log filtered to one record. */
export const historyPath = (entity: string, id: string) =>
  `/audit-log?${new URLSearchParams({ entity, entityId: id }).toString()}`;

function FormTitle<TItem extends Entity, TValues extends FieldValues, TInput>({
  entity,
  id,
  paths,
  hideDelete,
  actions,
  item,
  resource,
  history,
  editTitle,
}: FormViewProps<TItem, TValues, TInput> & { item?: TItem }) {
  const historyEntity = history === false ? undefined : (history ?? resource.resource);
  return (
    <PageHeader title={id ? (editTitle ?? `Edit ${entity}`) : `Create ${entity}`}>
      {item && actions?.(item)}
      {id && historyEntity && (
        <LinkButton to={historyPath(historyEntity, id)} variant="outline-secondary">
          History
        </LinkButton>
      )}
      {id && !hideDelete && paths.delete && (
        <LinkButton to={paths.delete(id)} variant="outline-danger">
          Delete {entity}
        </LinkButton>
      )}
      {paths.list && (
        <LinkButton to={paths.list} variant="outline-secondary">
          Back to list
        </LinkButton>
      )}
    </PageHeader>
  );
}

function FormBody<TItem extends Entity, TValues extends FieldValues, TInput>(
  props: FormViewProps<TItem, TValues, TInput> & { item?: TItem },
) {
  const { entity, resource, schema, defaultValues, toValues, paths, submitLabel, hideSubmit, children, item } = props;
  const navigate = useNavigate();
  const dialogs = useDialogs();
  const toasts = useToasts();
  const create = resource.useCreate();
  const update = resource.useUpdate();

  // The resolver's types cannot follow a generic schema; its output is TInput by construction.
  const resolver = zodResolver(schema as never) as unknown as Resolver<TValues, unknown, FieldValues>;
  const form = useForm<TValues, unknown, FieldValues>({
    resolver,
    defaultValues: item ? toValues(item) : defaultValues,
  });

  const handleServerError = (error: unknown) => {
    const fields = error instanceof ApiError ? error.fields : undefined;
    const values = form.getValues();
    let unplaced = !fields || Object.keys(fields).length === 0;
    let first = true;
    for (const [name, message] of Object.entries(fields ?? {})) {
      if (get(values, name) === undefined && !(name in values)) {
        unplaced = true;
        continue;
      }
      form.setError(name as Path<TValues>, { type: 'server', message }, { shouldFocus: first });
      first = false;
    }
    if (unplaced) void dialogs.apiError(error);
  };

  const handleValid = async (values: FieldValues) => {
    const input = values as TInput;
    try {
      if (item) {
        const saved = await update.mutateAsync({ id: item._id, input });
        toasts.success(`${entity} saved successfully`);
        form.reset(saved && typeof saved === 'object' && '_id' in saved ? toValues(saved) : form.getValues());
      } else {
        const created = await create.mutateAsync(input);
        toasts.success(`${entity} created successfully`);
        await navigate(paths.edit(created._id));
      }
    } catch (error) {
      handleServerError(error);
    }
  };

  const pending = form.formState.isSubmitting;
  // A save in progress may navigate (create goes to the edit route): only an idle, edited form asks.
  useUnsavedChanges(form.formState.isDirty && !pending);

  return (
    <>
      <FormTitle {...props} />
      <FormProvider {...form}>
        <Form noValidate onSubmit={(event) => void form.handleSubmit(handleValid)(event)} className="fd-form">
          <fieldset disabled={pending}>{typeof children === 'function' ? children({ item, form }) : children}</fieldset>
          {!hideSubmit && <SubmitButton pending={pending}>{submitLabel ?? (item ? 'Save' : 'Create')}</SubmitButton>}
        </Form>
      </FormProvider>
    </>
  );
}
