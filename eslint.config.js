import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-plugin-prettier/recommended';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';

/** The API's import rules for `files`: never the simulators or the demo (tests excepted), and `more` besides. */
const apiImports = (files, more, ignores = []) => ({
  files,
  ignores: ['apps/api/src/**/*.test.ts', 'apps/api/src/test/**', ...ignores],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        paths: [{ name: '@fleetdesk/simulators', message: 'Only apps/api/src/demo/ and tests load the simulators.' }],
        patterns: [{ group: ['**/demo/*', '**/demo/**'], message: 'Only the entry point loads the demo.' }, ...more],
      },
    ],
  },
});

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      'data/**',
      'apps/api/src/db/migrations/**',
      'test-results/**',
      'playwright-report/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  {
    files: ['apps/web/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: { 'react-hooks/rules-of-hooks': 'error', 'react-hooks/exhaustive-deps': 'warn' },
  },
  // Production never loads the simulators: only the demo folder (loaded by a dynamic import) and tests may.
  apiImports(['apps/api/src/**/*.ts'], [], ['apps/api/src/demo/**']),
  // The floors (issue 41, decision 074): lib/ and http/ sit below the modules and name none; the modules know the
  // job engine through lib/jobs.ts only, since the engine and its registry of kinds sit above them.
  apiImports(
    ['apps/api/src/lib/**/*.ts', 'apps/api/src/http/**/*.ts'],
    [
      {
        group: ['**/modules/**'],
        message: 'lib/ and http/ sit below the modules: take what you need through an interface the container gives.',
      },
      { group: ['**/jobs/**'], message: 'lib/ and http/ sit below the job engine.' },
    ],
  ),
  // A module's own files, and the files of a folder inside it (the import path to src/jobs differs by one step).
  ...['../../', '../../../'].map((up, depth) =>
    apiImports(
      [`apps/api/src/modules/*/${'*/'.repeat(depth)}*.ts`],
      [{ group: [`${up}jobs/**`], message: 'The job engine and its kinds sit above the modules: use lib/jobs.ts.' }],
    ),
  ),
  prettier,
);
