import Card from 'react-bootstrap/Card';
import Col from 'react-bootstrap/Col';
import Row from 'react-bootstrap/Row';

/** A plan's counts, one card each: its items, then the kind's outcomes (a label, a number, a text colour). */
export function PlanCounts({ cells }: { cells: readonly (readonly [label: string, n: number, color: string])[] }) {
  return (
    <Row xs={2} md={4} className="g-2 mb-3">
      {cells.map(([label, n, color]) => (
        <Col key={label}>
          <Card body className="text-center h-100">
            <div className={`fs-4 fw-semibold text-${color}`} aria-label={`${label}: ${n}`}>
              {n}
            </div>
            <div className="small text-body-secondary">{label}</div>
          </Card>
        </Col>
      ))}
    </Row>
  );
}
