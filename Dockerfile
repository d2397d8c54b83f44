# Portcullis for the cluster (shared mode, see deploy/chart). Three stages: dependencies
# (better-sqlite3's native module is compiled here, against the same Node and glibc as the
# runtime), the production build (Next.js standalone output: server.js plus only the node_modules
# files it traces, so no dev dependency reaches the image), and a small runtime that runs as a
# non-root user on a read-only root filesystem (the chart mounts /tmp, .next/cache and the data
# directory).
FROM node:20-bookworm-slim AS deps
WORKDIR /src
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund

FROM deps AS build
ENV NEXT_TELEMETRY_DISABLED=1
COPY . .
RUN npx next build \
 && test -f .next/standalone/server.js \
 && find .next/standalone/node_modules/better-sqlite3 -name better_sqlite3.node | grep -q .

FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production \
    NEXT_TELEMETRY_DISABLED=1 \
    PORT=3000
WORKDIR /app
RUN groupadd --system --gid 10001 portcullis \
 && useradd --system --uid 10001 --gid portcullis --no-create-home --home-dir /nonexistent portcullis
# Owned by root and read-only to the process: it writes only to the mounted volumes.
COPY --from=build /src/.next/standalone ./
COPY --from=build /src/.next/static ./.next/static
COPY --from=build /src/public ./public
COPY --from=build /src/scripts/start.mjs ./scripts/start.mjs
USER 10001:10001
EXPOSE 3000
CMD ["node", "scripts/start.mjs"]
