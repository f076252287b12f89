# The runner image of the container executors: the runner bundle (a node, its
# loader and libraries, and `svc` as one file) at /.svc-runner and nothing
# else. The kubernetes executor runs it as the init container of task pods
# (`svc install-runner`, started through the bundle's own loader, so the image
# needs no shell and no libc): set SVC_RUNNER_IMAGE to where you push it.
#
#   docker build -f infra/runner.Dockerfile -t svc-runner .
#
# NODE_IMAGE only builds the bundle (its node is the one shipped); see
# infra/Dockerfile for the substitution the tests make.
ARG NODE_IMAGE=node:24-bookworm-slim
# Tests only: an image holding /out/runner (see infra/Dockerfile).
ARG PREBUILT=

# The same first stages as infra/Dockerfile, so the two share their layer
# cache (the dependency layer among them).
FROM ${NODE_IMAGE} AS manifests
ARG PREBUILT
COPY . /src
RUN mkdir -p /manifests && { [ -n "${PREBUILT}" ] || { cd /src && \
      find . -name package.json -not -path '*/node_modules/*' -exec cp --parents {} /manifests/ \; && \
      cp --parents pnpm-lock.yaml pnpm-workspace.yaml scripts/bootstrap.mjs /manifests/; }; }

FROM ${NODE_IMAGE} AS deps
# Only for a build behind a TLS-intercepting proxy (see infra/Dockerfile).
ARG NODE_EXTRA_CA_CERTS
ARG SSL_CERT_FILE
ARG npm_config_cafile
ARG PREBUILT
WORKDIR /src
COPY --from=manifests /manifests/ /src/
RUN [ -n "${PREBUILT}" ] || CI=true node scripts/bootstrap.mjs --install-only

FROM deps AS build
ARG PREBUILT
COPY . .
RUN [ -n "${PREBUILT}" ] || CI=true node scripts/bootstrap.mjs

FROM build AS bundle
ARG PREBUILT
RUN [ -n "${PREBUILT}" ] || node infra/runner-bundle.mjs /out/runner

FROM ${PREBUILT:-bundle} AS bundled

FROM scratch AS runner
ARG VERSION=0.0.0-dev
LABEL org.opencontainers.image.title="svc-runner" \
      org.opencontainers.image.version="${VERSION}"
COPY --from=bundled /out/runner /.svc-runner
# No CMD: the executors give the command, the bundle's argv (bundle.json).
