# Gatehouse container image (not exercised by CI here: the proof of multi-instance operation is the
# two-process test suite). Build: docker build -t gatehouse .
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# The workspace package (@gatehouse/resource-server) must be present for npm ci to link it.
COPY packages/resource-server-kit/package.json ./packages/resource-server-kit/
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY packages/resource-server-kit/tsconfig.json ./packages/resource-server-kit/
COPY packages/resource-server-kit/src ./packages/resource-server-kit/src
COPY src ./src
RUN npx tsc -p packages/resource-server-kit/tsconfig.json && npx tsc -p tsconfig.build.json && npm prune --omit=dev

FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# node_modules/@gatehouse/resource-server links here.
COPY --from=build /app/packages ./packages
COPY package.json ./
COPY migrations ./migrations
COPY console ./console
COPY bin ./bin
COPY scripts/build-if-needed.mjs ./scripts/
USER node
EXPOSE 3000
CMD ["node", "dist/src/main.js"]
