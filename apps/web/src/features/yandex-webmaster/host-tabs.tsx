import Alert from 'react-bootstrap/Alert';
import Button from 'react-bootstrap/Button';
import { useDialogs } from '../../components/dialog-host.tsx';
import { StaticField } from '../../components/form-fields.tsx';
import { useToasts } from '../../components/toasts.tsx';
import { YandexCode, YandexCodes } from './yandex-labels.tsx';
import {
  useAddSitemap,
  useDeleteSitemap,
  useImportantUrls,
  useRecrawl,
  useRecrawlQueue,
  useRecrawlQuota,
  useSitemaps,
  useSummary,
  useUserSitemaps,
} from './yandex-webmaster-api.ts';
import { Loaded, RecordTable, UrlForm, failure, show, when } from './host-kit.tsx';

type TabProps = { id: string; hostId: string; enabled: boolean };

export function SummaryTab({ id, hostId, enabled }: TabProps) {
  return (
    <Loaded q={useSummary(id, hostId, enabled)}>
      {(s) => (
        <>
          <StaticField label="SQI" value={show(s.sqi)} />
          <StaticField label="Searchable Pages" value={show(s.searchable_pages_count)} />
          <StaticField label="Excluded Pages" value={show(s.excluded_pages_count)} />
          <StaticField
            label="Site Problems"
            value={
              Object.keys(s.site_problems ?? {}).length ? (
                <span data-testid="site-problems">
                  {Object.entries(s.site_problems ?? {}).map(([k, n], i) => (
                    <span key={k}>
                      {i > 0 && ', '}
                      <YandexCode code={k} />: {n}
                    </span>
                  ))}
                </span>
              ) : (
                'None'
              )
            }
          />
        </>
      )}
    </Loaded>
  );
}

export function ImportantUrlsTab({ id, hostId, enabled }: TabProps) {
  return (
    <Loaded q={useImportantUrls(id, hostId, enabled)}>
      {(urls) => (
        <RecordTable
          testId="important-urls"
          rows={urls}
          rowKey={(u) => u.url}
          empty="No important URLs"
          columns={[
            { label: 'URL', className: 'fd-url-cell', cell: (u) => u.url },
            { label: 'Updated', cell: (u) => when(u.update_date) },
            { label: 'Changes', cell: (u) => <YandexCodes codes={u.change_indicators} /> },
            { label: 'Indexing', cell: (u) => <YandexCode code={u.indexing_status?.status} /> },
            { label: 'HTTP', cell: (u) => show(u.indexing_status?.http_code) },
            { label: 'Title', cell: (u) => show(u.search_status?.title) },
            {
              label: 'Searchable',
              cell: (u) =>
                u.search_status?.searchable === undefined ? '—' : u.search_status.searchable ? 'Yes' : 'No',
            },
            { label: 'Excluded Status', cell: (u) => <YandexCode code={u.search_status?.excluded_url_status} /> },
          ]}
        />
      )}
    </Loaded>
  );
}

export function SitemapsTab({ id, hostId, enabled }: TabProps) {
  return (
    <Loaded q={useSitemaps(id, hostId, enabled)}>
      {(list) => (
        <RecordTable
          rows={list}
          rowKey={(m) => m.sitemap_id}
          empty="No sitemaps found"
          columns={[
            { label: 'Sitemap URL', className: 'fd-url-cell', cell: (m) => m.sitemap_url },
            { label: 'Type', cell: (m) => <YandexCode code={m.sitemap_type} /> },
            { label: 'Last Access', cell: (m) => when(m.last_access_date) },
            { label: 'URLs', cell: (m) => show(m.urls_count) },
            { label: 'Errors', cell: (m) => show(m.errors_count) },
            { label: 'Children', cell: (m) => show(m.children_count) },
            { label: 'Sources', cell: (m) => <YandexCodes codes={m.sources} /> },
          ]}
        />
      )}
    </Loaded>
  );
}

export function UserSitemapsTab({ id, hostId, enabled }: TabProps) {
  const q = useUserSitemaps(id, hostId, enabled);
  const add = useAddSitemap(id, hostId);
  const del = useDeleteSitemap(id, hostId);
  const dialogs = useDialogs();
  const toasts = useToasts();
  return (
    <>
      <UrlForm
        label="Sitemap URL"
        button="Add Sitemap"
        pending={add.isPending}
        onSubmit={async (url) => {
          try {
            await add.mutateAsync(url);
            toasts.success('Sitemap added successfully');
            return true;
          } catch (err) {
            await dialogs.error(failure(err, 'Failed to add sitemap'));
            return false;
          }
        }}
      />
      <Loaded q={q}>
        {(data) => (
          <RecordTable
            rows={data.sitemaps}
            rowKey={(m) => m.sitemap_id}
            empty="No sitemaps added"
            columns={[
              { label: 'Sitemap URL', className: 'fd-url-cell', cell: (m) => m.sitemap_url },
              { label: 'Sitemap Id', cell: (m) => <code>{m.sitemap_id}</code> },
              { label: 'Added', cell: (m) => when(m.added_date) },
              {
                label: '',
                className: 'text-end',
                cell: (m) => (
                  <Button
                    size="sm"
                    variant="outline-danger"
                    disabled={del.isPending}
                    onClick={() =>
                      void dialogs
                        .confirm(`Delete the sitemap ${m.sitemap_url}?`)
                        .then((yes) => (yes ? del.mutateAsync(m.sitemap_id) : undefined))
                        .then(
                          (r) => r !== undefined && toasts.success('Sitemap deleted successfully'),
                          (err) => void dialogs.error(failure(err, 'Failed to delete sitemap')),
                        )
                    }
                  >
                    Delete
                  </Button>
                ),
              },
            ]}
          />
        )}
      </Loaded>
    </>
  );
}

export function RecrawlTab({ id, hostId, enabled }: TabProps) {
  const quota = useRecrawlQuota(id, hostId, enabled);
  const queue = useRecrawlQueue(id, hostId, enabled);
  const recrawl = useRecrawl(id, hostId);
  const dialogs = useDialogs();
  const toasts = useToasts();
  return (
    <>
      <Loaded q={quota}>
        {(q) => (
          <div className="d-flex gap-4 mb-3" data-testid="recrawl-quota">
            <StaticField label="Daily Quota" value={q.daily_quota} />
            <StaticField label="Quota Remainder" value={q.quota_remainder} />
          </div>
        )}
      </Loaded>
      <UrlForm
        label="URL to recrawl"
        button="Recrawl"
        pending={recrawl.isPending}
        onSubmit={async (url) => {
          try {
            const r = await recrawl.mutateAsync(url);
            toasts.success(
              r.backlogged
                ? "Today's quota is spent: the URL waits and is sent on a later day"
                : 'URL sent for recrawl',
            );
            return true;
          } catch (err) {
            await dialogs.error(failure(err, 'Failed to recrawl task'));
            return false;
          }
        }}
      />
      <Loaded q={queue}>
        {(data) => (
          <>
            {data.backlog.length > 0 && (
              <Alert variant="secondary">
                <div className="fw-semibold mb-1">Waiting for a later day&apos;s quota ({data.backlog.length})</div>
                <ul className="mb-0 small">
                  {data.backlog.map((b) => (
                    <li key={b.url} className="text-break">
                      {b.url}
                    </li>
                  ))}
                </ul>
              </Alert>
            )}
            <RecordTable
              rows={data.tasks}
              rowKey={(t) => t.task_id}
              empty="No recrawl tasks"
              columns={[
                { label: 'URL', className: 'fd-url-cell', cell: (t) => t.url },
                { label: 'Task Id', cell: (t) => <code>{t.task_id}</code> },
                { label: 'Added', cell: (t) => when(t.added_time) },
                { label: 'State', cell: (t) => <YandexCode code={t.state} /> },
              ]}
            />
          </>
        )}
      </Loaded>
    </>
  );
}
