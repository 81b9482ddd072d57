import type { ReactElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { MemoryRouter } from 'react-router';
import type { UseQueryResult } from '@tanstack/react-query';
import { describe, expect, it, vi } from 'vitest';
import { ErrorBox } from '../../components/error-box.tsx';
import { PlanPage, PlanStateBadge, type PlanPageProps } from './plan-page.tsx';

/**
 * The frame of the fleet plan, import and launch batch pages. Rendered as the browser first paints it (the web tests
 * run without a DOM, as sso-callback-page.test.tsx does); each slot leaves a marker, so the order can be read.
 */
type Plan = { planNo: number; state: string; stateText: string; error: string | null };
const PLAN: Plan = { planNo: 7, state: 'completed_with_failures', stateText: 'Completed with failures', error: null };

const queryOf = (over: Partial<Record<string, unknown>>) =>
  ({
    isPending: false,
    isError: false,
    data: PLAN,
    error: null,
    refetch: vi.fn(),
    ...over,
  }) as unknown as UseQueryResult<Plan>;

const slots = (over: Partial<PlanPageProps<Plan>> = {}): PlanPageProps<Plan> => ({
  query: queryOf({}),
  title: (p) => `Thing #${p.planNo}`,
  badge: (p) => <PlanStateBadge plan={p} />,
  back: { to: '/things', label: 'All things' },
  subtitle: () => 'planned by admin',
  notes: () => <p>the notes</p>,
  links: () => <p>the links</p>,
  counts: () => <div>the counts</div>,
  progress: () => <div>the progress</div>,
  buttons: () => <button type="button">the buttons</button>,
  items: () => <div>the items</div>,
  ...over,
});

const render = (props: PlanPageProps<Plan>) =>
  renderToStaticMarkup(
    <MemoryRouter>
      <PlanPage {...props} />
    </MemoryRouter>,
  );

/** Each marker's place in the page, which must grow from the first to the last. */
const expectInOrder = (html: string, markers: string[]) => {
  const at = markers.map((m) => html.indexOf(m));
  at.forEach((i, n) => expect(i, `${markers[n]} is on the page`).toBeGreaterThanOrEqual(0));
  expect(at).toEqual([...at].sort((a, b) => a - b));
};

describe('the plan page frame', () => {
  it('shows a spinner while the plan loads, and none of its slots', () => {
    const html = render(slots({ query: queryOf({ isPending: true, data: undefined }) }));
    expect(html).toContain('role="status"');
    expect(html).toContain('Loading...');
    expect(html).not.toContain('Thing #7');
    expect(html).not.toContain('<section');
  });

  it('shows an error box whose Refresh loads the plan again', () => {
    const refetch = vi.fn();
    const props = slots({
      query: queryOf({ isError: true, data: undefined, error: new Error('Plan not found'), refetch }),
    });
    const html = render(props);
    expect(html).toContain('role="alert"');
    expect(html).toContain('Failed to load data');
    expect(html).toContain('>Refresh</button>');
    expect(html).not.toContain('Thing #7');
    // No DOM to click in: the frame (no hooks) answers the ErrorBox element, whose onRefresh is the button's.
    const box = PlanPage(props) as ReactElement<{ onRefresh: () => void }>;
    expect(box.type).toBe(ErrorBox);
    box.props.onRefresh();
    expect(refetch).toHaveBeenCalledOnce();
  });

  it("says the API's message when the kind asks for it (the launch batch)", () => {
    const error = new Error('Launch batch not found');
    const html = render(slots({ query: queryOf({ isError: true, error }), errorMessage: (e) => e.message }));
    expect(html).toContain('<span>Launch batch not found</span>');
  });

  it('puts the title and badge in the heading, the back link beside it, then the slots in order in a card', () => {
    const html = render(slots({ query: queryOf({ data: { ...PLAN, error: 'The provider refused' } }) }));
    const h1 = /<h1 class="h3 mb-0 me-auto">(.*?)<\/h1>/.exec(html)?.[1] ?? '';
    expect(h1).toMatch(/^Thing #7 <span [^>]*data-testid="plan-state"[^>]*>Completed with failures<\/span>$/);
    expect(html).toContain('<a href="/things" data-discover="true">All things</a>');
    expect(html).toContain('<p class="text-body-secondary mb-3">planned by admin</p>');
    expect(html).toContain('<div role="alert" class="fade alert alert-danger show">The provider refused</div>');
    expect(html).toContain('<div class="card-body"><div class="d-flex flex-column gap-3"><div>the progress</div>');
    expectInOrder(html, [
      '<h1',
      'All things',
      'planned by admin',
      'the notes',
      'The provider refused',
      'the links',
      'the counts',
      'class="card-body"',
      'the progress',
      'the buttons',
      'the items',
    ]);
  });

  it('leaves out the slots a kind has not, and the error alert when the plan has none', () => {
    const html = render(slots({ back: undefined, notes: undefined, links: undefined, counts: undefined }));
    expect(html).not.toContain('All things');
    expect(html).not.toContain('the notes');
    expect(html).not.toContain('the counts');
    expect(html).not.toContain('alert-danger');
    expectInOrder(html, ['<h1', 'planned by admin', 'the progress', 'the buttons', 'the items']);
  });

  it('in the toolbar layout, names the plan alone in the heading, the buttons in the header, the bar above the line', () => {
    const html = render(slots({ layout: 'toolbar', back: undefined, badge: (p) => <PlanStateBadge plan={p} plain /> }));
    expect(html).toContain(
      '<h1 class="h3 mb-0">Thing #7</h1><span class="badge bg-warning">Completed with failures</span>',
    );
    expect(html).toContain(
      '<div class="ms-auto d-flex flex-wrap gap-2"><button type="button">the buttons</button></div>',
    );
    expect(html).toContain('<p class="small text-body-secondary">planned by admin</p>');
    expect(html).not.toContain('class="card');
    expectInOrder(html, ['<h1', 'the buttons', 'the progress', 'planned by admin', 'the notes', 'the items']);
  });
});

describe('the plan state badge', () => {
  const badge = (state: string, plain = false) =>
    renderToStaticMarkup(<PlanStateBadge plan={{ state, stateText: state }} plain={plain} />);

  it("is the fleet's by default: dark text on amber and cyan, wrapping, with its test id", () => {
    expect(badge('paused')).toBe(
      '<span data-testid="plan-state" class="text-wrap text-start badge text-dark bg-warning">paused</span>',
    );
    expect(badge('planned')).toContain('class="text-wrap text-start badge text-dark bg-info"');
    expect(badge('completed')).toBe(
      '<span data-testid="plan-state" class="text-wrap text-start badge bg-success">completed</span>',
    );
  });

  it('plain: the colour alone, white text (the import and the launch batch)', () => {
    expect(badge('paused', true)).toBe('<span class="badge bg-warning">paused</span>');
    expect(badge('failed', true)).toBe('<span class="badge bg-danger">failed</span>');
  });
});
