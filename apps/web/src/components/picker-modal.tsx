import { useState } from 'react';
import Button from 'react-bootstrap/Button';
import Modal from 'react-bootstrap/Modal';
import type { Entity } from '../lib/resource.ts';
import { ErrorBox } from './error-box.tsx';
import { ListTable } from './list-table.tsx';
import { LoadingSpinner } from './loading-spinner.tsx';
import { Pager } from './pager.tsx';
import type { PickerViewProps } from './picker.tsx';
import { SearchBox } from './search-box.tsx';

/** A modal list: search, pager, Cancel; clicking a row picks it. */
export function PickerModal<T extends Entity>({ show, onHide, title, ...rest }: PickerViewProps<T>) {
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
