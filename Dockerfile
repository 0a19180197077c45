# One image for tooltrail's own services (collector, ingest, alerts, migrate); the command picks the role.
# The sources are TypeScript run through tsx: production dependencies only, and one build stage for the C file.

# The native row hasher of the audit digests (audit/native-core), compiled where a C compiler is.
FROM node:20-bookworm AS native
WORKDIR /app
COPY scripts/build-native.js scripts/
COPY audit/native-core/row-hashes.c audit/native-core/
RUN node scripts/build-native.js && test -f build/row-hashes.node

FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
# postinstall runs scripts/build-native.js: without a compiler here it says so; the binary comes from the stage above.
COPY scripts/build-native.js scripts/
# The embedded ClickHouse engine (a 500 MB optional dependency) is for laptops; compose uses ClickHouse server.
RUN npm ci --omit=dev --omit=optional --no-audit --no-fund && npm cache clean --force
COPY . .
COPY --from=native /app/build/row-hashes.node build/
USER node
ENTRYPOINT ["node", "bin/tooltrail.js"]
CMD ["--help"]
