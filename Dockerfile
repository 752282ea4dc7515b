# Sello's image: a static binary on distroless (CA roots, tzdata, a nonroot
# user, no shell). make image builds it with the version from git; plain
# docker build works too (sello version then says dev/unknown):
#
#	docker build --build-arg VERSION=1.2.0 --build-arg COMMIT=$(git rev-parse HEAD) -t sello:1.2.0 .
#	docker run --rm sello:1.2.0 version

# The toolchain go.mod asks for (go 1.26.x).
FROM golang:1.26 AS build
WORKDIR /src
# The modules first, so that a change of Sello's code reuses their layer.
COPY go.mod go.sum ./
COPY client/go.mod client/
RUN go mod download
COPY . .
ARG VERSION=dev
ARG COMMIT=unknown
# CGO off: a static binary (SQLite is modernc's, pure Go), which the
# distroless static image runs.
RUN CGO_ENABLED=0 go build -trimpath -buildvcs=false \
	-ldflags "-s -w -X main.version=${VERSION} -X main.commit=${COMMIT}" \
	-o /out/sello ./cmd/sello \
	&& mkdir -p /out/data

# distroless/static: /etc/ssl/certs (DGII's TLS, webhooks, buyers'
# receivers), /usr/share/zoneinfo and the nonroot user (uid 65532). Sello
# also embeds Go's tzdata, so TZ=America/Santo_Domingo works without it.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/sello /usr/local/bin/sello
# The SQLite data folder (SELLO_DATA), owned by nonroot: mount a volume
# here, or use PostgreSQL (SELLO_DATABASE_URL).
COPY --from=build --chown=nonroot:nonroot /out/data /data
# PATH names the binary's folder, so that docker exec CONTAINER sello …
# runs the operator commands on the container's storage.
ENV PATH=/usr/local/bin:/usr/bin:/bin \
	SELLO_DATA=/data \
	SELLO_ADDR=0.0.0.0:8080 \
	SELLO_LOG_FORMAT=json
USER nonroot:nonroot
EXPOSE 8080
VOLUME ["/data"]
ENTRYPOINT ["/usr/local/bin/sello"]
CMD ["serve"]
