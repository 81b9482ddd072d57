import CodeMirror from '@uiw/react-codemirror';
import { html } from '@codemirror/lang-html';
import { EditorView } from '@codemirror/view';

// The CSP allows only styles from the console or carrying this answer's nonce; CodeMirror adds a <style>.
const nonce = document.querySelector<HTMLMetaElement>('meta[name="csp-nonce"]')?.content ?? '';
const extensions = [html(), ...(nonce && nonce !== '__CSP_NONCE__' ? [EditorView.cspNonce.of(nonce)] : [])];

/** The CodeMirror editor for content files, language html (spec §9). Loaded lazily: not in the first bundle. */
export default function FileEditor({ value, onChange }: { value: string; onChange: (value: string) => void }) {
  return (
    <div className="border rounded" data-testid="content-file-editor">
      <CodeMirror value={value} onChange={onChange} extensions={extensions} height="60vh" basicSetup={{ tabSize: 2 }} />
    </div>
  );
}
