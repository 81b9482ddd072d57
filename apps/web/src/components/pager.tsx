import { useState, type FormEvent } from 'react';
import Button from 'react-bootstrap/Button';
import Form from 'react-bootstrap/Form';
import InputGroup from 'react-bootstrap/InputGroup';
import Pagination from 'react-bootstrap/Pagination';
import { PAGE_SIZE } from '@fleetdesk/contract';
import { goToPageTarget, pageWindow, totalPages } from './pager-logic.ts';

export interface PagerProps {
  page: number;
  itemsCount: number;
  pageSize?: number;
  onPageChange: (page: number) => void;
}

/** At most 10 page numbers around the current one, << and >>, and a go-to box when pages are hidden. */
export function Pager({ page, itemsCount, pageSize = PAGE_SIZE, onPageChange }: PagerProps) {
  const total = totalPages(itemsCount, pageSize);
  if (total <= 1) return null;
  const pages = pageWindow(page, total);
  return (
    <nav aria-label="Pages" className="d-flex flex-wrap align-items-center gap-3 my-3">
      <Pagination className="mb-0 flex-wrap">
        <Pagination.First disabled={page <= 1} onClick={() => onPageChange(1)} aria-label="First page">
          {'<<'}
        </Pagination.First>
        {pages.map((n) => (
          <Pagination.Item key={n} active={n === page} onClick={() => onPageChange(n)}>
            {n}
          </Pagination.Item>
        ))}
        <Pagination.Last disabled={page >= total} onClick={() => onPageChange(total)} aria-label="Last page">
          {'>>'}
        </Pagination.Last>
      </Pagination>
      {total > pages.length && <GoToPage total={total} onGo={onPageChange} />}
    </nav>
  );
}

function GoToPage({ total, onGo }: { total: number; onGo: (page: number) => void }) {
  const [value, setValue] = useState('');
  const handleSubmit = (event: FormEvent) => {
    event.preventDefault();
    const target = goToPageTarget(value, total);
    if (target === null) return;
    setValue('');
    onGo(target);
  };
  return (
    <Form onSubmit={handleSubmit} noValidate>
      <InputGroup size="sm" style={{ width: 170 }}>
        <Form.Control
          type="number"
          min={1}
          max={total}
          step={1}
          placeholder="Page"
          aria-label="Go to page"
          value={value}
          onChange={(event) => setValue(event.target.value)}
        />
        <Button type="submit" variant="outline-secondary">
          Go
        </Button>
      </InputGroup>
    </Form>
  );
}
