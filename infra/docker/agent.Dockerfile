# The agent's image, for the Helm chart's DaemonSet (agent.enabled). Build from the repository root:
#   docker build -f infra/docker/agent.Dockerfile --build-arg VERSION=0.1.0 -t spindle-agent:0.1.0 .
# One static Go binary (CGO off; the eBPF objects are embedded in it) on a base with nothing else:
# no shell, no package manager. It runs as root: loading eBPF programs and reading every file
# for fragmentation scans need root's uid with the capabilities the chart adds (a non-root user
# with those capabilities still cannot open other users' files nor the tracing file systems).
# infra/deploycheck checks this file's instructions against the chart (dockerfile_test.go), and
# the agent's tests run its command line (agent/cmd/spindle-agent/container_test.go).
FROM golang:1.26-bookworm AS build
ARG VERSION=0.1.0-dev
WORKDIR /src
COPY agent/ agent/
RUN cd agent \
 && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/spindle-agent ./cmd/spindle-agent

FROM gcr.io/distroless/static-debian12
COPY --from=build /out/spindle-agent /usr/bin/spindle-agent
# How the agent was installed: it never replaces the binary of an image (the chart sets
# kubernetes; another runtime gets "upgrade it the way it was installed").
ENV SPINDLE_INSTALL_METHOD=container
ENTRYPOINT ["/usr/bin/spindle-agent"]
CMD ["run", "--config", "/etc/spindle/agent.yaml"]
