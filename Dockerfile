# One image for tooltrail's own services (collector, ingest, alerts, migrate); the command picks the role.
# It runs the compiled JavaScript (dist/, built by tsc in the first stage) on production dependencies only.

# The build: the CLI compiled to dist/ and the native row hasher of the audit digests (audit/native-core), with the
# dev dependencies (typescript) and a C compiler.
FROM node:24-bookworm AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY scripts/ scripts/
# The embedded ClickHouse engine (a 500 MB optional dependency) is for laptops; compose uses ClickHouse server.
RUN npm ci --omit=optional --ignore-scripts --no-audit --no-fund
COPY . .
RUN node scripts/build-native.js && test -f build/row-hashes.node && npm run build

FROM node:24-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --omit=optional --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY bin/ bin/
COPY --from=build /app/dist/ dist/
COPY --from=build /app/build/row-hashes.node build/
USER node
ENTRYPOINT ["node", "bin/tooltrail.js"]
CMD ["--help"]
