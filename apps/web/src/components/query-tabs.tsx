import { useEffect, useRef, useState, type ComponentProps, type CSSProperties } from 'react';
import Tabs from 'react-bootstrap/Tabs';
import { useSearchParams } from 'react-router';

export type QueryTabsProps = Omit<ComponentProps<typeof Tabs>, 'activeKey' | 'onSelect' | 'defaultActiveKey'> & {
  defaultActiveKey: string;
  /** The query parameter holding the active tab. */
  param?: string;
  /** Query parameters that belong to one tab (e.g. a list's page and search), dropped when the tab changes. */
  resetParams?: readonly string[];
};

type More = { left: boolean; right: boolean; height: number };

/**
 * A row of tabs wider than the screen scrolls sideways (styles.css); this says there are more: a fade and an
 * arrow on the side that hides tabs, which scrolls the row.
 */
function useTabsOverflow() {
  const box = useRef<HTMLDivElement>(null);
  const [more, setMore] = useState<More>({ left: false, right: false, height: 0 });
  useEffect(() => {
    const nav = box.current?.querySelector<HTMLElement>(':scope > .nav-tabs');
    if (!nav) return;
    const measure = () => {
      const max = nav.scrollWidth - nav.clientWidth;
      const next = { left: nav.scrollLeft > 1, right: nav.scrollLeft < max - 1, height: nav.offsetHeight };
      setMore((prev) =>
        prev.left === next.left && prev.right === next.right && prev.height === next.height ? prev : next,
      );
    };
    measure();
    // Keep the active tab in view (e.g. ?tab=yandex-webmaster opened on a phone).
    nav.querySelector<HTMLElement>('.nav-link.active')?.scrollIntoView({ block: 'nearest', inline: 'nearest' });
    nav.addEventListener('scroll', measure, { passive: true });
    const observer = new ResizeObserver(measure);
    observer.observe(nav);
    return () => {
      nav.removeEventListener('scroll', measure);
      observer.disconnect();
    };
  }, []);
  const scroll = (direction: -1 | 1) => {
    const nav = box.current?.querySelector<HTMLElement>(':scope > .nav-tabs');
    nav?.scrollBy({ left: direction * Math.max(120, nav.clientWidth * 0.6), behavior: 'smooth' });
  };
  return { box, more, scroll };
}

/** react-bootstrap Tabs whose active key lives in ?tab= (so reloads and links keep it). */
export function QueryTabs({ defaultActiveKey, param = 'tab', resetParams, children, ...props }: QueryTabsProps) {
  const [searchParams, setSearchParams] = useSearchParams();
  const activeKey = searchParams.get(param) ?? defaultActiveKey;
  const { box, more, scroll } = useTabsOverflow();
  const handleSelect = (key: string | null) => {
    if (!key) return;
    setSearchParams(
      (prev) => {
        const next = new URLSearchParams(prev);
        if (next.get(param) !== key) for (const name of resetParams ?? []) next.delete(name);
        next.set(param, key);
        return next;
      },
      { replace: true },
    );
  };
  return (
    <div
      ref={box}
      className="fd-tabs"
      data-more-left={more.left || undefined}
      data-more-right={more.right || undefined}
      style={{ '--fd-tabs-height': `${more.height}px` } as CSSProperties}
    >
      <Tabs activeKey={activeKey} onSelect={handleSelect} className="mb-3" {...props}>
        {children}
      </Tabs>
      {more.left && (
        <button type="button" className="fd-tabs-more fd-tabs-more-left" onClick={() => scroll(-1)} tabIndex={-1}>
          <span aria-hidden="true">‹</span>
          <span className="visually-hidden">Earlier tabs</span>
        </button>
      )}
      {more.right && (
        <button type="button" className="fd-tabs-more fd-tabs-more-right" onClick={() => scroll(1)} tabIndex={-1}>
          <span aria-hidden="true">›</span>
          <span className="visually-hidden">More tabs</span>
        </button>
      )}
    </div>
  );
}
