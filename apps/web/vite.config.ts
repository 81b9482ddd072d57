/// <reference types="node" />
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import type { Plugin } from 'vite';

/**
 * Writes .br and .gz beside every compressible asset once, at build time, at the best quality: the API sends
 * them to browsers that accept them (@fastify/static preCompressed) instead of compressing on every request.
 */
function precompress(): Plugin {
  return {
    name: 'fleetdesk-precompress',
    apply: 'build',
    writeBundle(options, bundle) {
      const dir = options.dir!;
      for (const name of Object.keys(bundle)) {
        if (!/\.(js|css|svg|json|txt|wasm)$/.test(name)) continue;
        const file = path.join(dir, name);
        const data = fs.readFileSync(file);
        if (data.length < 1024) continue;
        fs.writeFileSync(
          `${file}.br`,
          zlib.brotliCompressSync(data, {
            params: {
              [zlib.constants.BROTLI_PARAM_QUALITY]: zlib.constants.BROTLI_MAX_QUALITY,
              [zlib.constants.BROTLI_PARAM_SIZE_HINT]: data.length,
            },
          }),
        );
        fs.writeFileSync(`${file}.gz`, zlib.gzipSync(data, { level: 9 }));
      }
    },
  };
}

// scripts/dev.mjs passes the API's address; 3000 is the API's default port.
const apiTarget = process.env.FLEETDESK_API_URL ?? 'http://127.0.0.1:3000';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [react(), precompress()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    rolldownOptions: {
      // The build's one slow plugin is ours: precompress writes every asset at the best Brotli quality, on
      // purpose, once. Rolldown's [PLUGIN_TIMINGS] warning about it told a newcomer nothing to act on (issue 47).
      checks: { bundlerTimings: false },
      output: {
        // React and the form libraries change less often than the app: their chunks stay cached across releases.
        // Other libraries go with the screens that use them, so a first visit loads only what its page needs
        // (the file editor's CodeMirror stays in its own lazy chunk).
        codeSplitting: {
          groups: [
            { name: 'react', test: /node_modules[\\/](react|react-dom|react-router|scheduler)[\\/]/, priority: 30 },
            { name: 'query', test: /node_modules[\\/]@tanstack[\\/](query-core|react-query)[\\/]/, priority: 25 },
            { name: 'forms', test: /node_modules[\\/](zod|react-hook-form|@hookform)[\\/]/, priority: 20 },
            // The one chart library (decision 070), fetched only by the screens that draw.
            { name: 'charts', test: /node_modules[\\/]uplot[\\/]/, priority: 15 },
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
