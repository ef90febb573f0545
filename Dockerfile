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
RUN ["go", "build", "-trimpath", "-ldflags=-s -w", "-o", "/out/toolscore", "./cmd/toolscore"]

FROM ${BASE_IMAGE}
COPY --from=build /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
COPY --from=build /out/toolscore /usr/local/bin/toolscore
ENTRYPOINT ["/usr/local/bin/toolscore"]
CMD ["run"]
