// The npm package punycode (not Node's deprecated built-in of the same name), imported by its file path so that
// Node, Vite and the browser all load the package (CommonJS: one default export).
declare module 'punycode/punycode.js' {
  const punycode: { toUnicode(domain: string): string; toASCII(domain: string): string };
  export default punycode;
}
