import { useEffect, useRef, useState, type DragEvent } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import Alert from 'react-bootstrap/Alert';
import Button from 'react-bootstrap/Button';
import ProgressBar from 'react-bootstrap/ProgressBar';
import Table from 'react-bootstrap/Table';
import type { ContentFileItem, ContentFilesDir } from '@fleetdesk/contract';
import { ConfirmModal } from '../../components/confirm-modal.tsx';
import { ErrorBox } from '../../components/error-box.tsx';
import { LinkButton } from '../../components/link-button.tsx';
import { historyPath } from '../../components/form-view.tsx';
import { LoadingSpinner } from '../../components/loading-spinner.tsx';
import { useToasts } from '../../components/toasts.tsx';
import { useForbiddenDialog } from '../../components/use-forbidden-dialog.ts';
import { errorMessage } from '../../lib/api-error.ts';
import {
  CONTENT_FILES_MESSAGES,
  contentFilesPaths,
  downloadFile,
  entriesFromDrop,
  uploadFiles,
  useContentDir,
  useContentList,
  useCreateDomainDir,
  useDomain,
  useRemove,
  type UploadEntry,
} from './content-files-api.ts';
import { NewFolderDialog, RenameDialog } from './content-dialogs.tsx';
import { Crumbs, TypeIcon, join, segmentsOf } from './content-crumbs.tsx';
import { EditFile } from './file-edit-panel.tsx';

/** The domain's file manager (spec §4 "Content files"): create the directory, browse, upload, edit. */
export function ContentFilesPage() {
  const { id = '' } = useParams();
  const [params, setParams] = useSearchParams();
  const dir = `/${segmentsOf(params.get('path') ?? '').join('/')}`;
  const openFile = params.get('file');
  const domain = useDomain(id);
  // The files live on the domain's server: without one, asking would only answer 400.
  const noServer = domain.isSuccess && !domain.data.serverId;
  const dirInfo = useContentDir(id, domain.isSuccess && !noServer);
  useForbiddenDialog(dirInfo.error);

  const go = (next: { path?: string; file?: string | null }) => {
    const p = new URLSearchParams();
    const nextDir = next.path ?? dir;
    if (nextDir !== '/') p.set('path', nextDir);
    if (next.file) p.set('file', next.file);
    setParams(p);
  };

  let body;
  if (noServer) {
    body = (
      <p className="text-body-secondary" data-testid="content-files-no-server">
        This domain has no server. Pick one on the{' '}
        <Link to={`${contentFilesPaths.domain(id)}?tab=general`}>General tab</Link> and save first.
      </p>
    );
  } else if (domain.isError) {
    body = <ErrorBox detail={errorMessage(domain.error)} onRefresh={() => void domain.refetch()} />;
  } else if (dirInfo.isPending) body = <LoadingSpinner />;
  else if (dirInfo.isError) {
    body = (
      <ErrorBox
        message={CONTENT_FILES_MESSAGES.load}
        detail={errorMessage(dirInfo.error)}
        onRefresh={() => void dirInfo.refetch()}
      />
    );
  } else if (!dirInfo.data.domainDirExists) body = <CreateDomainDir id={id} info={dirInfo.data} />;
  else if (openFile) body = <EditFile id={id} file={openFile} onClose={() => go({ file: null })} />;
  else {
    body = (
      <FileBrowser
        id={id}
        dir={dir}
        info={dirInfo.data}
        onOpenDir={(p) => go({ path: p })}
        onOpenFile={(p) => go({ file: p })}
      />
    );
  }

  return (
    <section>
      <div className="d-flex flex-wrap align-items-center gap-2 mb-1">
        <h1 className="h3 mb-0 me-auto">Edit Content Files</h1>
        {/* The domain's history: each save, removal, upload or copy there offers Restore (decision 078). */}
        <LinkButton
          to={historyPath('domains', id)}
          variant="outline-secondary"
          title="The domain's changes; a content change's entry offers Restore"
        >
          History
        </LinkButton>
        <LinkButton to={contentFilesPaths.domain(id)} variant="outline-secondary">
          Back to domain
        </LinkButton>
      </div>
      <p className="text-body-secondary mb-3">{domain.data?.domainNameUnicode ?? domain.data?.domainName ?? ' '}</p>
      {body}
    </section>
  );
}

function CreateDomainDir({ id, info }: { id: string; info: ContentFilesDir }) {
  const create = useCreateDomainDir(id);
  return (
    <div style={{ maxWidth: 720 }}>
      <Alert variant="secondary">
        The domain directory <code>{info.domainDirName}</code> does not exist on the server yet.
      </Alert>
      {create.isError && (
        <Alert variant="danger">
          {CONTENT_FILES_MESSAGES.createDir}
          <div className="small mt-1">{errorMessage(create.error)}</div>
        </Alert>
      )}
      <Button onClick={() => create.mutate()} disabled={create.isPending}>
        {create.isPending ? 'Creating…' : 'Create Directory'}
      </Button>
    </div>
  );
}

type Dialog =
  { kind: 'rename'; item: ContentFileItem } | { kind: 'delete'; item: ContentFileItem } | { kind: 'new-folder' } | null;

function FileBrowser({
  id,
  dir,
  info,
  onOpenDir,
  onOpenFile,
}: {
  id: string;
  dir: string;
  info: ContentFilesDir;
  onOpenDir: (p: string) => void;
  onOpenFile: (p: string) => void;
}) {
  const list = useContentList(id, dir, true);
  const toasts = useToasts();
  const [dialog, setDialog] = useState<Dialog>(null);
  const [progress, setProgress] = useState<number | null>(null);
  const [uploadError, setUploadError] = useState<string | null>(null);
  const [dragging, setDragging] = useState(false);
  const [actionError, setActionError] = useState<string | null>(null);
  const filesInput = useRef<HTMLInputElement>(null);
  const folderInput = useRef<HTMLInputElement>(null);
  const remove = useRemove(id);

  // The folder picker is non-standard: React does not know the attribute, so it is set on the element.
  useEffect(() => {
    folderInput.current?.setAttribute('webkitdirectory', '');
    folderInput.current?.setAttribute('directory', '');
  }, []);

  const startUpload = async (entries: UploadEntry[]) => {
    setUploadError(null);
    if (!entries.length) return;
    const { maxFiles, maxFileBytes } = info.uploadLimits;
    // The server refuses the same with 413; saying so first saves sending the bytes.
    if (entries.length > maxFiles) return setUploadError(`At most ${maxFiles} files can be uploaded at once`);
    const big = entries.find((e) => e.file.size > maxFileBytes);
    if (big) return setUploadError(`"${big.path}" is larger than the limit of ${maxFileBytes} bytes`);
    setProgress(0);
    try {
      const result = await uploadFiles(id, dir, entries, setProgress);
      toasts.success(`Uploaded ${result.items.length} file${result.items.length === 1 ? '' : 's'}`);
    } catch (err) {
      setUploadError(errorMessage(err));
    } finally {
      setProgress(null);
      void list.refetch();
    }
  };

  const onDrop = async (ev: DragEvent) => {
    ev.preventDefault();
    setDragging(false);
    if (progress !== null) return;
    void startUpload(await entriesFromDrop(ev.dataTransfer, info.uploadLimits.maxFiles));
  };

  const fromInput = (input: HTMLInputElement | null) => {
    const files = [...(input?.files ?? [])];
    if (input) input.value = '';
    void startUpload(files.map((file) => ({ file, path: file.webkitRelativePath || file.name })));
  };

  const download = async (item: ContentFileItem) => {
    setActionError(null);
    try {
      await downloadFile(id, join(dir, item.name), item.name);
    } catch (err) {
      setActionError(errorMessage(err));
    }
  };

  return (
    <div
      onDragOver={(ev) => {
        ev.preventDefault();
        setDragging(true);
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={(ev) => void onDrop(ev)}
      className={`p-2 rounded ${dragging ? 'border border-primary border-2 bg-primary-subtle' : 'border border-transparent'}`}
      data-testid="content-files-dropzone"
    >
      <Crumbs root={info.domainDirName} path={dir} onOpen={onOpenDir} />
      <div className="d-flex flex-wrap gap-2 mb-2">
        <Button size="sm" variant="outline-primary" onClick={() => setDialog({ kind: 'new-folder' })}>
          New Folder
        </Button>
        <Button
          size="sm"
          variant="outline-primary"
          disabled={progress !== null}
          onClick={() => filesInput.current?.click()}
        >
          Upload Files
        </Button>
        <Button
          size="sm"
          variant="outline-primary"
          disabled={progress !== null}
          onClick={() => folderInput.current?.click()}
        >
          Upload Folder
        </Button>
        <span className="small text-body-secondary align-self-center">or drop files and folders here</span>
        <input
          ref={filesInput}
          type="file"
          multiple
          hidden
          data-testid="upload-files-input"
          onChange={(e) => fromInput(e.currentTarget)}
        />
        <input
          ref={folderInput}
          type="file"
          multiple
          hidden
          data-testid="upload-folder-input"
          onChange={(e) => fromInput(e.currentTarget)}
        />
      </div>
      {progress !== null && (
        <ProgressBar
          now={Math.round(progress * 100)}
          label={`${Math.round(progress * 100)}%`}
          className="mb-2"
          aria-label="Upload progress"
        />
      )}
      {uploadError && (
        <Alert variant="danger" dismissible onClose={() => setUploadError(null)}>
          {uploadError}
        </Alert>
      )}
      {actionError && (
        <Alert variant="danger" dismissible onClose={() => setActionError(null)}>
          {actionError}
        </Alert>
      )}
      {list.isPending ? (
        <LoadingSpinner />
      ) : list.isError ? (
        <ErrorBox
          message={CONTENT_FILES_MESSAGES.load}
          detail={errorMessage(list.error)}
          onRefresh={() => void list.refetch()}
        />
      ) : (
        <Table hover responsive size="sm" className="align-middle">
          <thead>
            <tr>
              <th>Name</th>
              <th className="text-end">Actions</th>
            </tr>
          </thead>
          <tbody>
            {dir !== '/' && (
              <tr>
                <td colSpan={2}>
                  <Button
                    variant="link"
                    className="p-0"
                    onClick={() => onOpenDir(`/${segmentsOf(dir).slice(0, -1).join('/')}`)}
                  >
                    ..
                  </Button>
                </td>
              </tr>
            )}
            {list.data.items.length === 0 && (
              <tr>
                <td colSpan={2} className="text-body-secondary">
                  This folder is empty.
                </td>
              </tr>
            )}
            {list.data.items.map((item) => (
              <tr key={item.name} data-testid="content-file-row">
                <td className="text-break">
                  <TypeIcon type={item.type} />
                  <Button
                    variant="link"
                    className="p-0 text-start"
                    onClick={() =>
                      item.type === 'directory' ? onOpenDir(join(dir, item.name)) : onOpenFile(join(dir, item.name))
                    }
                  >
                    {item.displayName}
                  </Button>
                </td>
                <td className="text-end text-nowrap">
                  {item.type === 'file' && (
                    <Button
                      size="sm"
                      variant="link"
                      onClick={() => void download(item)}
                      aria-label={`Download ${item.name}`}
                    >
                      Download
                    </Button>
                  )}
                  <Button
                    size="sm"
                    variant="link"
                    onClick={() => setDialog({ kind: 'rename', item })}
                    aria-label={`Rename ${item.name}`}
                  >
                    Rename
                  </Button>
                  <Button
                    size="sm"
                    variant="link"
                    className="text-danger"
                    onClick={() => setDialog({ kind: 'delete', item })}
                    aria-label={`Delete ${item.name}`}
                  >
                    Delete
                  </Button>
                </td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
      {dialog?.kind === 'rename' && (
        <RenameDialog
          id={id}
          path={join(dir, dialog.item.name)}
          current={dialog.item.name}
          onClose={() => setDialog(null)}
        />
      )}
      {dialog?.kind === 'new-folder' && <NewFolderDialog id={id} dir={dir} onClose={() => setDialog(null)} />}
      <ConfirmModal
        show={dialog?.kind === 'delete'}
        title="Delete"
        message={
          dialog?.kind === 'delete' ? (
            <>
              {remove.isError && <Alert variant="danger">{errorMessage(remove.error)}</Alert>}
              Delete {dialog.item.type === 'directory' ? 'the folder' : 'the file'} <strong>{dialog.item.name}</strong>
              {dialog.item.type === 'directory' ? ' and everything in it' : ''}?
            </>
          ) : (
            ''
          )
        }
        confirmLabel="Delete"
        confirmVariant="danger"
        pending={remove.isPending}
        onCancel={() => {
          remove.reset();
          setDialog(null);
        }}
        onConfirm={() => {
          if (dialog?.kind !== 'delete') return;
          remove.mutate(join(dir, dialog.item.name), {
            onSuccess: () => {
              toasts.success(`Deleted ${dialog.item.name}`);
              setDialog(null);
            },
          });
        }}
      />
    </div>
  );
}
