/// <reference types="node" />
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';

// scripts/dev.mjs passes the API's address; 3000 is the API's default port.
const apiTarget = process.env.FLEETDESK_API_URL ?? 'http://127.0.0.1:3000';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    rolldownOptions: {
      output: {
        // Libraries change less often than the app: separate chunks stay cached across releases.
        codeSplitting: {
          groups: [
            { name: 'react', test: /node_modules[\\/](react|react-dom|react-router|scheduler)[\\/]/, priority: 30 },
            { name: 'forms', test: /node_modules[\\/](zod|react-hook-form|@hookform)[\\/]/, priority: 20 },
            // The content-files editor's libraries stay out of vendor: they go with the lazy editor chunk only.
            {
              name: 'vendor',
              test: /node_modules[\\/](?!@codemirror|@lezer|@uiw|codemirror|style-mod|w3c-keyname|crelt|@marijn)/,
              priority: 10,
            },
          ],
        },
      },
    },
  },
  server: {
    host: '127.0.0.1',
    proxy: {
      '/api': { target: apiTarget },
      '/auth': { target: apiTarget },
      '/healthz': { target: apiTarget },
    },
  },
});
