import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// Built into dist/, served by the api-gateway at `/`. Hashed files land in
// dist/assets/ (served with a one-year immutable cache); index.html is not
// hashed and is served with no-cache.
export default defineConfig({
  plugins: [react()],
  base: '/',
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false, chunkSizeWarningLimit: 1500 },
  server: { proxy: { '/api': 'http://127.0.0.1:8080' } },
});
