import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// The console is served by the API server at /console/ (src/http/console-assets.ts); `npm run build`
// builds it into dist/console/ next to the server's compiled files.
export default defineConfig({
  root: import.meta.dirname,
  base: '/console/',
  plugins: [react()],
  build: {
    outDir: '../dist/console',
    emptyOutDir: true,
    reportCompressedSize: false,
    chunkSizeWarningLimit: 1500,
  },
  logLevel: 'warn',
});
