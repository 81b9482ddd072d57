import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-plugin-prettier/recommended';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';

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
  {
    // Production never loads the simulators: only the demo folder (loaded by a dynamic import) and tests may.
    files: ['apps/api/src/**/*.ts'],
    ignores: ['apps/api/src/demo/**', 'apps/api/src/**/*.test.ts', 'apps/api/src/test/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: '@fleetdesk/simulators', message: 'Only apps/api/src/demo/ and tests load the simulators.' }],
          patterns: [{ group: ['**/demo/*', '**/demo/**'], message: 'Only the entry point loads the demo.' }],
        },
      ],
    },
  },
  {
    // The floors (issue 41, decision 074): lib/ and http/ sit below the modules and name none; the modules know the
    // job engine through lib/jobs.ts only, since the engine and its registry of kinds sit above them.
    files: ['apps/api/src/lib/**/*.ts', 'apps/api/src/http/**/*.ts'],
    ignores: ['apps/api/src/**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: '@fleetdesk/simulators', message: 'Only apps/api/src/demo/ and tests load the simulators.' }],
          patterns: [
            { group: ['**/demo/*', '**/demo/**'], message: 'Only the entry point loads the demo.' },
            {
              group: ['**/modules/**'],
              message:
                'lib/ and http/ sit below the modules: take what you need through an interface the container gives.',
            },
            { group: ['**/jobs/**'], message: 'lib/ and http/ sit below the job engine.' },
          ],
        },
      ],
    },
  },
  {
    files: ['apps/api/src/modules/*/*.ts'],
    ignores: ['apps/api/src/**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: '@fleetdesk/simulators', message: 'Only apps/api/src/demo/ and tests load the simulators.' }],
          patterns: [
            { group: ['**/demo/*', '**/demo/**'], message: 'Only the entry point loads the demo.' },
            {
              group: ['../../jobs/**'],
              message: 'The job engine and its kinds sit above the modules: use lib/jobs.ts.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['apps/api/src/modules/*/*/*.ts'],
    ignores: ['apps/api/src/**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: '@fleetdesk/simulators', message: 'Only apps/api/src/demo/ and tests load the simulators.' }],
          patterns: [
            { group: ['**/demo/*', '**/demo/**'], message: 'Only the entry point loads the demo.' },
            {
              group: ['../../../jobs/**'],
              message: 'The job engine and its kinds sit above the modules: use lib/jobs.ts.',
            },
          ],
        },
      ],
    },
  },
  prettier,
);
