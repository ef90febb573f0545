# Cells of {{.Name}}: the real {{.Package}} from PyPI, driven by adapter.py, pinned with every
# dependency by requirements.txt; SDK_VERSION installs another version instead (a manifest pin).
# Rendered from internal/cellimage/templates/python.Dockerfile for internal/client/clients/{{.Name}}.
ARG BASE_IMAGE=python:3.12-slim-bookworm
FROM ${BASE_IMAGE}
ARG SDK_VERSION=
# pip trusts the image's own CA bundle (a build behind a TLS-inspecting proxy needs that).
ENV PIP_CERT=/etc/ssl/certs/ca-certificates.crt PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1
WORKDIR /opt/adapter
COPY requirements.txt ./
RUN python3 -m venv /opt/adapter/venv && \
    if [ -n "$SDK_VERSION" ]; then /opt/adapter/venv/bin/pip install -q "{{.Requirement}}==$SDK_VERSION"; \
    else /opt/adapter/venv/bin/pip install -q -r requirements.txt; fi
COPY adapter.py ./
COPY toolscore /opt/toolscore/toolscore
# The run's work directory, owned by the cell user: a run with no input files needs no copy-in.
COPY --chown=1000:1000 workdir/ /run/toolscore/
LABEL io.toolscore.workdir=1000:1000
