# The two commands of the README. Everything they need is installed by
# scripts/install-deps.sh (apt, idempotent).
.PHONY: run test build deps clean-run images images-test docs

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
# non-root user) and runs the stack from them as deploy/*.yaml describe it,
# PostgreSQL included (scripts/images/stack.py). `make test` runs it too.
images-test: deps
	./scripts/images/test.sh

deps:
	./scripts/install-deps.sh

# The docs as a static site in site/ (mkdocs, pinned; scripts/docs.sh): a
# broken link, anchor or page fails it.
docs:
	./scripts/docs.sh

# Removes the private PostgreSQL data kept by `make run`.
clean-run:
	./scripts/pg.sh stop .sluice/pg || true
	rm -rf .sluice
