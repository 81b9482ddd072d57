import { useEffect, useState } from 'react';
import CodeMirror from '@uiw/react-codemirror';
import type { Extension } from '@uiw/react-codemirror';
import { EditorView } from '@codemirror/view';

// The CSP allows only styles from the console or carrying this answer's nonce; CodeMirror adds a <style>.
const nonce = document.querySelector<HTMLMetaElement>('meta[name="csp-nonce"]')?.content ?? '';
const base: Extension[] = nonce && nonce !== '__CSP_NONCE__' ? [EditorView.cspNonce.of(nonce)] : [];

/**
 * The CodeMirror editor for content files, language html (spec §9). Loaded lazily: not in the first bundle. The
 * html language (which brings css and javascript for the page's <style> and <script>) is a chunk of its own,
 * loaded beside the editor, so that neither chunk is large and the text shows before its colours.
 */
export default function FileEditor({ value, onChange }: { value: string; onChange: (value: string) => void }) {
  const [language, setLanguage] = useState<Extension[]>([]);
  useEffect(() => {
    let live = true;
    void import('@codemirror/lang-html').then((m) => live && setLanguage([m.html()]));
    return () => {
      live = false;
    };
  }, []);
  return (
    <div className="border rounded" data-testid="content-file-editor">
      <CodeMirror
        value={value}
        onChange={onChange}
        extensions={[...base, ...language]}
        height="60vh"
        basicSetup={{ tabSize: 2 }}
      />
    </div>
  );
}
