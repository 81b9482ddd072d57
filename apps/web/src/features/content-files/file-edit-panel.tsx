import { lazy, Suspense, useState } from 'react';
import Alert from 'react-bootstrap/Alert';
import Button from 'react-bootstrap/Button';
import { ErrorBox } from '../../components/error-box.tsx';
import { LoadingSpinner } from '../../components/loading-spinner.tsx';
import { useUnsavedChanges } from '../../components/use-unsaved-changes.ts';
import { useToasts } from '../../components/toasts.tsx';
import { errorMessage } from '../../lib/api-error.ts';
import { CONTENT_FILES_MESSAGES, useFileContent, useSaveFile } from './content-files-api.ts';

// CodeMirror is large: it loads only when a file is opened.
const FileEditor = lazy(() => import('./file-editor.tsx'));

export function EditFile({ id, file, onClose }: { id: string; file: string; onClose: () => void }) {
  const content = useFileContent(id, file);
  const save = useSaveFile(id);
  const toasts = useToasts();
  const [text, setText] = useState<string | null>(null);
  const value = text ?? content.data?.fileContent ?? '';
  const dirty = text !== null && text !== content.data?.fileContent;
  // Close and another file change ?file=, so the query counts as leaving too.
  useUnsavedChanges(dirty, { query: true });

  return (
    <div>
      <div className="d-flex flex-wrap align-items-center gap-2 mb-2">
        <code className="me-auto text-break">{file}</code>
        <Button variant="outline-secondary" onClick={onClose}>
          Close
        </Button>
        <Button
          disabled={!content.isSuccess || save.isPending}
          onClick={() =>
            save.mutate(
              { path: file, content: value },
              {
                onSuccess: () => {
                  toasts.success('File saved');
                },
              },
            )
          }
        >
          {save.isPending ? 'Saving…' : 'Save'}
        </Button>
      </div>
      {save.isError && (
        <Alert variant="danger">
          {CONTENT_FILES_MESSAGES.save}
          <div className="small mt-1">{errorMessage(save.error)}</div>
        </Alert>
      )}
      {dirty && <div className="small text-body-secondary mb-1">Unsaved changes</div>}
      {content.isPending ? (
        <LoadingSpinner />
      ) : content.isError ? (
        <ErrorBox
          message={CONTENT_FILES_MESSAGES.loadFile}
          detail={errorMessage(content.error)}
          onRefresh={() => void content.refetch()}
        />
      ) : (
        <Suspense fallback={<LoadingSpinner />}>
          <FileEditor value={value} onChange={setText} />
        </Suspense>
      )}
    </div>
  );
}
