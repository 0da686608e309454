import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The UI is served by the service with `Content-Security-Policy: default-src 'self'`: no inline
// script or style in the built page, no asset from another host, fonts are the system's.
export default defineConfig({
  plugins: [react()],
  resolve: { conditions: ['@appliance/source'] },
  build: {
    outDir: 'dist',
    assetsDir: 'assets',
    // the preload helper would be inlined otherwise; the one chunk needs none
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    sourcemap: false,
    target: 'es2022',
    chunkSizeWarningLimit: 700,
  },
});
