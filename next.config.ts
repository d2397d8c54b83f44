import type { NextConfig } from "next";

const config: NextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // Admin tools run air-gapped: nothing is fetched at build or run time.
  images: { unoptimized: true },
};

export default config;
