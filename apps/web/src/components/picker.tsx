import { lazy, Suspense, useState, type ComponentType } from 'react';
import type { QueryParams } from '../lib/api-client.ts';
import type { Entity, UseListHook } from '../lib/resource.ts';
import type { Column } from './list-table.tsx';

// The modal loads when a picker first opens: lists' filter bars show pickers' buttons on a first visit, never the
// modal (decision 048).
const PickerModal = lazy(() =>
  import('./picker-modal.tsx').then((m) => ({ default: m.PickerModal as ComponentType<PickerViewProps<Entity>> })),
);

/** What a concrete picker (e.g. RegionPicker) takes. */
export interface PickerProps<T> {
  show: boolean;
  onHide: () => void;
  onPick: (item: T) => void;
  /** Extra list query, e.g. in-use checks. */
  extraParams?: QueryParams;
}

export interface PickerViewProps<T extends Entity> extends PickerProps<T> {
  /** "Select a region" */
  title: string;
  useList: UseListHook<T>;
  columns: Column<T>[];
  isInUse?: (item: T) => boolean | null | undefined;
}

/** A modal list: search, pager, Cancel; clicking a row picks it. Mounted from its first opening on. */
export function Picker<T extends Entity>(props: PickerViewProps<T>) {
  const [opened, setOpened] = useState(props.show);
  if (props.show && !opened) setOpened(true);
  if (!opened) return null;
  return (
    <Suspense fallback={null}>
      <PickerModal {...(props as unknown as PickerViewProps<Entity>)} />
    </Suspense>
  );
}
