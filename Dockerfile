# The toolscore runner and action image: a static binary on an empty base. Sweeps run from
# inside it with only the Docker socket mounted:
#   docker run -v /var/run/docker.sock:/var/run/docker.sock toolscore run
# GO_IMAGE is the toolchain to build with; CI without a registry passes a local image.
ARG GO_IMAGE=golang:1.26-bookworm
ARG BASE_IMAGE=scratch

FROM ${GO_IMAGE} AS build
ARG GOPROXY
ENV CGO_ENABLED=0 GOFLAGS=-buildvcs=false
WORKDIR /src
COPY go.mod go.sum ./
# Exec form throughout: a toolchain image need not have a shell.
RUN ["go", "mod", "download"]
COPY . .
# VERSION is what toolscore version reports. GitHub builds the action's image from this file
# with no build arguments, so a release commit sets this default to its tag; other builds pass
# --build-arg VERSION=$(git describe --tags --always --dirty). GOFLAGS carries it to the
# linker because an exec-form RUN expands no variables.
ARG VERSION=unreleased
ENV GOFLAGS="-buildvcs=false '-ldflags=-s -w -X=main.version=${VERSION}'"
RUN ["go", "build", "-trimpath", "-o", "/out/toolscore", "./cmd/toolscore"]

FROM ${BASE_IMAGE}
COPY --from=build /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY --from=build /out/toolscore /usr/local/bin/toolscore
ENTRYPOINT ["/usr/local/bin/toolscore"]
CMD ["run"]
