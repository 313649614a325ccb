import { fileURLToPath, URL } from 'node:url';

import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  plugins: [react()],
  resolve: { alias: { '@': fileURLToPath(new URL('./src', import.meta.url)) } },
  server: { port: 5173, proxy: { '^/(auth|admin|jobs|analyze|tasks|usage|contact|healthz|media)': 'http://localhost:8080' } },
  build: { outDir: 'dist', sourcemap: true },
});
