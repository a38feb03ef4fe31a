# The two commands of the README. Everything they need is installed by
# scripts/install-deps.sh (apt, idempotent).
.PHONY: run test build deps clean-run

run:
	./scripts/run.sh

test:
	./scripts/test.sh

build: deps
	bazel build //...

deps:
	./scripts/install-deps.sh

# Removes the private PostgreSQL data kept by `make run`.
clean-run:
	./scripts/pg.sh stop .sluice/pg || true
	rm -rf .sluice
