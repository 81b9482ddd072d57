import type { ComponentProps } from 'react';
import Tabs from 'react-bootstrap/Tabs';
import { useSearchParams } from 'react-router';

export type QueryTabsProps = Omit<ComponentProps<typeof Tabs>, 'activeKey' | 'onSelect' | 'defaultActiveKey'> & {
  defaultActiveKey: string;
  /** The query parameter holding the active tab. */
  param?: string;
  /** Query parameters that belong to one tab (e.g. a list's page and search), dropped when the tab changes. */
  resetParams?: readonly string[];
};

/** react-bootstrap Tabs whose active key lives in ?tab= (so reloads and links keep it). */
export function QueryTabs({ defaultActiveKey, param = 'tab', resetParams, children, ...props }: QueryTabsProps) {
  const [searchParams, setSearchParams] = useSearchParams();
  const activeKey = searchParams.get(param) ?? defaultActiveKey;
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
    <Tabs activeKey={activeKey} onSelect={handleSelect} className="mb-3" {...props}>
      {children}
    </Tabs>
  );
}
