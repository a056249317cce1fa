# Build stage: bundle the service with esbuild (scripts/bundle.mjs; what `npm start` runs).
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY scripts/bundle.mjs ./scripts/
COPY src ./src
COPY channels ./channels
RUN node scripts/bundle.mjs

# Runtime stage: production dependencies (the bundle keeps a few external: PGlite, bull-board, pino, unpdf…),
# the bundle with its Lua scripts, migrations; runs as a non-root user.
FROM node:24-bookworm-slim
ENV NODE_ENV=production
# bubblewrap: the sandbox of the bash and CLI tools (see the README for the container's security options)
RUN apt-get update \
  && apt-get install -y --no-install-recommends bubblewrap \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist/bundle ./dist/bundle
COPY drizzle ./drizzle
USER node
EXPOSE 8080
CMD ["node", "dist/bundle/cli.js", "start"]
