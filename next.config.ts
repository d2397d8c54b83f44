import type { NextConfig } from "next";
import { PHASE_PRODUCTION_BUILD } from "next/constants";

const config: NextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // Admin tools run air-gapped: nothing is fetched at build or run time.
  images: { unoptimized: true },
  // `npm run typecheck` checks the whole project; the build need not do it again.
  typescript: { ignoreBuildErrors: true },
  // The server's sources are bundled into the routes; a route that reads a file at a path it is
  // given (the AdmissionConfiguration's `path:` entries) makes the tracer copy the sources beside
  // it into the standalone output. Neither sources nor tests belong in the image.
  outputFileTracingExcludes: { "*": ["server/**/*.ts", "**/*.test.ts"] },
  experimental: {
    // proxy.ts sees every request, and Next hands a route only the first 10 MB of a body that
    // passed a proxy unless told otherwise: an audit batch may be up to 16 MiB
    // (MAX_AUDIT_BODY_BYTES in lib/http/json-limits.ts), which the sink itself refuses beyond.
    proxyClientMaxBodySize: 16 * 1024 * 1024 + 1024 * 1024,
    // The stylesheet in the HTML instead of a request of its own: a page could not paint its
    // first screen until that request came back (about 100 ms on a loaded machine, from the same
    // server that was still streaming the page), while the rows were already in the first bytes.
    // It is 20 kB (5 kB gzipped), and the CSP allows inline styles already.
    inlineCss: true,
  },
};

/**
 * Every production build also writes Next's standalone output (.next/standalone: server.js and
 * only the node_modules files it traces), which the container image runs. `next start` (what
 * `npm start` and the test stack run) serves the same build and is not told, or it would warn
 * that it is the wrong way to serve a standalone build.
 */
export default function nextConfig(phase: string): NextConfig {
  return phase === PHASE_PRODUCTION_BUILD ? { ...config, output: "standalone" } : config;
}
