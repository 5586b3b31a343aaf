# fastcar: build with the dev toolchain, run as an unprivileged user on the
# slim image with production dependencies only.
FROM node:20-bookworm-slim AS build
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci
COPY tsconfig.json ./
COPY src ./src
COPY devnet ./devnet
COPY harness ./harness
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production \
    FASTCAR_HOST=0.0.0.0 \
    FASTCAR_PORT=8080
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
COPY --from=build --chown=node:node /app/devnet/runtime ./devnet/runtime
COPY --from=build --chown=node:node /app/devnet/relay-runtime ./devnet/relay-runtime
COPY --from=build --chown=node:node /app/devnet/chain ./devnet/chain
COPY --chown=node:node package.json ./
USER node
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.FASTCAR_PORT||8080)+'/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "--no-memory-reducer", "dist/src/main.js"]
