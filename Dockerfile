# Build stage: compile TypeScript.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
COPY channels ./channels
COPY bench ./bench
RUN npx tsc -p tsconfig.json

# Runtime stage: production dependencies, compiled code, migrations; runs as a non-root user.
FROM node:24-bookworm-slim
ENV NODE_ENV=production
# bubblewrap: the sandbox of the bash and CLI tools (see the README for the container's security options)
RUN apt-get update \
  && apt-get install -y --no-install-recommends bubblewrap \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY drizzle ./drizzle
# Redis Lua scripts stay .lua files (tsc does not copy them); src/budgets/lua-scripts.ts finds them here
COPY src/budgets/lua ./src/budgets/lua
COPY src/queue/lua ./src/queue/lua
USER node
EXPOSE 8080
CMD ["node", "dist/src/cli.js", "start"]
