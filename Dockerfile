# One image for tooltrail's own services (collector, ingest, alerts, migrate); the command picks the role.
# The sources are TypeScript run through tsx, so there is no build stage: production dependencies only.
FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
# The embedded ClickHouse engine (a 500 MB optional dependency) is for laptops; compose uses ClickHouse server.
RUN npm ci --omit=dev --omit=optional --no-audit --no-fund && npm cache clean --force
COPY . .
USER node
ENTRYPOINT ["node", "bin/tooltrail.js"]
CMD ["--help"]
