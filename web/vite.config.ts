import { fileURLToPath, URL } from 'node:url';

import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { compression } from 'vite-plugin-compression2';
import { VitePWA } from 'vite-plugin-pwa';

import { publicTexts } from './scripts/public-texts.ts';

export default defineConfig({
  plugins: [
    react(),
    // The landing page's texts apart from the rest (issue 40).
    publicTexts(fileURLToPath(new URL('./src/locales', import.meta.url))),
    // Installable PWA: the manifest, and a service worker (src/sw.ts) that precaches the app shell.
    VitePWA({
      strategies: 'injectManifest',
      srcDir: 'src',
      filename: 'sw.ts',
      // The app asks before activating a new version (see features/offline/pwa).
      registerType: 'prompt',
      injectRegister: false,
      injectManifest: {
        globPatterns: ['**/*.{js,css,html,svg,png,ico,webmanifest,woff2}'],
        // The landing page's demo video and the like are not part of the shell.
        globIgnores: ['**/media/**'],
        maximumFileSizeToCacheInBytes: 4 * 1024 * 1024,
      },
      manifest: {
        id: '/',
        name: 'Baret — KKD denetimi',
        short_name: 'Baret',
        description: 'Elektrik saha çalışması videolarında kişisel koruyucu donanım kontrolü. / Checks personal protective equipment in videos of electrical field work.',
        lang: 'tr',
        dir: 'ltr',
        start_url: '/dashboard',
        scope: '/',
        display: 'standalone',
        orientation: 'any',
        theme_color: '#0f172a',
        background_color: '#0f172a',
        categories: ['business', 'productivity', 'utilities'],
        icons: [
          { src: '/icons/icon-192.png', sizes: '192x192', type: 'image/png', purpose: 'any' },
          { src: '/icons/icon-512.png', sizes: '512x512', type: 'image/png', purpose: 'any' },
          { src: '/icons/icon-maskable-512.png', sizes: '512x512', type: 'image/png', purpose: 'maskable' },
        ],
      },
      devOptions: { enabled: false },
    }),
    // Brotli and gzip copies of every text asset, served as they are by the gateway
    // (@fastify/static preCompressed): no compression work per request.
    compression({ algorithms: ['brotliCompress', 'gzip'], threshold: 512 }),
  ],
  resolve: { alias: { '@': fileURLToPath(new URL('./src', import.meta.url)) } },
  server: { port: 5173, proxy: { '^/(auth|admin|jobs|analyze|tasks|usage|contact|healthz|media|uploads|notifications|webhooks|push)': 'http://localhost:8080' } },
  // No source maps in the build: nothing of the sources is served publicly.
  build: { outDir: 'dist', sourcemap: false },
});
