# Cells of {{.Name}}: the real {{.Package}} from npm, driven by adapter.mjs, pinned by
# package-lock.json; SDK_VERSION installs another version instead (a manifest pin). Rendered from
# internal/cellimage/templates/node.Dockerfile for internal/client/clients/{{.Name}}.
ARG BASE_IMAGE=node:20-bookworm-slim
FROM ${BASE_IMAGE}
ARG SDK_VERSION=
WORKDIR /opt/adapter
COPY package.json package-lock.json ./
RUN if [ -n "$SDK_VERSION" ]; then npm install --no-audit --no-fund --omit=dev "{{.Package}}@$SDK_VERSION"; \
    else npm ci --no-audit --no-fund --omit=dev; fi && (npm cache clean --force >/dev/null 2>&1 || true)
COPY adapter.mjs ./
COPY toolscore /opt/toolscore/toolscore
# The run's work directory, owned by the cell user: a run with no input files needs no copy-in.
COPY --chown=1000:1000 workdir/ /run/toolscore/
LABEL io.toolscore.workdir=1000:1000
ENV TOOLSCORE_TS_PACKAGE={{.Package}}
