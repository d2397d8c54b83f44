import type { NextConfig } from "next";
import { PHASE_PRODUCTION_BUILD } from "next/constants";

const config: NextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // Admin tools run air-gapped: nothing is fetched at build or run time.
  images: { unoptimized: true },
  // `npm run typecheck` checks the whole project; the build need not do it again.
  typescript: { ignoreBuildErrors: true },
  experimental: {
    // proxy.ts sees every request, and Next hands a route only the first 10 MB of a body that
    // passed a proxy unless told otherwise: an audit batch may be up to 16 MiB
    // (server/audit/sink.ts MAX_AUDIT_BODY_BYTES), which the sink itself refuses beyond.
    proxyClientMaxBodySize: 16 * 1024 * 1024 + 1024 * 1024,
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
