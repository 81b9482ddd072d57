import { useState } from 'react';
import Button from 'react-bootstrap/Button';
import Modal from 'react-bootstrap/Modal';
import type { QueryParams } from '../lib/api-client.ts';
import type { Entity, UseListHook } from '../lib/resource.ts';
import { ErrorBox } from './error-box.tsx';
import { ListTable, type Column } from './list-table.tsx';
import { LoadingSpinner } from './loading-spinner.tsx';
import { Pager } from './pager.tsx';
import { SearchBox } from './search-box.tsx';

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

/** A modal list: search, pager, Cancel; clicking a row picks it. */
export function Picker<T extends Entity>({ show, onHide, title, ...rest }: PickerViewProps<T>) {
  return (
    <Modal show={show} onHide={onHide} size="lg" centered scrollable aria-labelledby="picker-title">
      <Modal.Header closeButton>
        <Modal.Title as="h2" className="h4" id="picker-title">
          {title}
        </Modal.Title>
      </Modal.Header>
      {/* Mounted only while open, so each opening starts at page 1 with no search. */}
      {show && <PickerBody {...rest} />}
      <Modal.Footer>
        <Button variant="secondary" onClick={onHide}>
          Cancel
        </Button>
      </Modal.Footer>
    </Modal>
  );
}

function PickerBody<T extends Entity>({
  useList,
  columns,
  isInUse,
  onPick,
  extraParams,
}: Omit<PickerViewProps<T>, 'show' | 'onHide' | 'title'>) {
  const [page, setPage] = useState(1);
  const [search, setSearch] = useState('');
  const query = useList({ ...extraParams, page, search });

  const handleSearch = (value: string) => {
    setSearch(value);
    setPage(1);
  };

  return (
    <Modal.Body>
      <div className="mb-3">
        <SearchBox value={search} onSearch={handleSearch} autoFocus />
      </div>
      {query.isPending ? (
        <LoadingSpinner />
      ) : query.isError ? (
        <ErrorBox onRefresh={() => void query.refetch()} />
      ) : (
        <>
          <ListTable items={query.data.items} columns={columns} page={page} onRowClick={onPick} isInUse={isInUse} />
          <Pager page={page} itemsCount={query.data.itemsCount} onPageChange={setPage} />
        </>
      )}
    </Modal.Body>
  );
}
