# The two commands of the README. Everything they need is installed by
# scripts/install-deps.sh (apt, idempotent).
.PHONY: run test build deps clean-run images images-test

run:
	./scripts/run.sh

test:
	./scripts/test.sh

build: deps
	bazel build //...

# OCI images with buildah, no daemon, no registry (README "Images").
images: deps
	./scripts/images/build.sh

# Checks the built images (user, labels, packages file, runs read-only as a
# non-root user, `migrate` against a throwaway PostgreSQL). Not part of `make test`.
images-test: deps
	./scripts/with-postgres.sh ./scripts/images/test.sh

deps:
	./scripts/install-deps.sh

# Removes the private PostgreSQL data kept by `make run`.
clean-run:
	./scripts/pg.sh stop .sluice/pg || true
	rm -rf .sluice
