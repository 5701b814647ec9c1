# Every target creates or refreshes .venv itself, so `make demo` and `make test` work on a fresh clone.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp

.PHONY: demo test lint bench system-deps clean compiled

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	touch $(STAMP)

# moto's S3 server (the acceptance helper's S3 stand-in in tests) lives in its own venv: botocore pins
# python-dateutil < 3 while the kubernetes client needs >= 3, so they cannot share one environment.
MOTO := .venv-moto/.installed-stamp
$(MOTO):
	$(PYTHON) -m venv .venv-moto
	.venv-moto/bin/pip install -q 'moto[server]>=5'
	touch $(MOTO)

# The lowest kubernetes client pyproject.toml allows, in its own venv: acceptance's cluster tests run
# through it too (tests/acceptance/test_client_range.py). Its own site-packages come first; gpuplane and
# the rest come from .venv through a .pth file.
KUBE_LOW := .venv-kube-low/.installed-stamp
$(KUBE_LOW): $(STAMP)
	$(PYTHON) -m venv .venv-kube-low
	.venv-kube-low/bin/pip install -q 'kubernetes==29.0.0'
	$(PY) -c "import site, sys; print(site.getsitepackages()[0]); print('$(CURDIR)/src')" > \
		"$$(.venv-kube-low/bin/python -c 'import site; print(site.getsitepackages()[0])')/zz-gpuplane.pth"
	touch $(KUBE_LOW)

# The twin compiled with mypyc (scripts/compile_twin.py: a copy of the package in build/compiled that
# the editable install loads only while it matches the sources; about 1 CPU-minute when a source
# changed, nothing otherwise). No compiler or mypyc, or a compile error: the pure-Python twin runs.
compiled: $(STAMP)
	@$(PY) scripts/compile_twin.py build/compiled

demo: $(STAMP) compiled
	$(VENV)/bin/gpuplane --version
	$(VENV)/bin/gpuplane simulate

# Prometheus (account tests) and Chromium (HTML report tests) come from Debian's packages.
system-deps:
	bash scripts/system-deps.sh

test: $(STAMP) system-deps $(MOTO) $(KUBE_LOW) compiled
	$(PY) -m pytest -q -n 2 --dist loadfile

lint: $(STAMP)
	$(VENV)/bin/ruff check src tests benchmarks
	$(VENV)/bin/ruff format --check src tests benchmarks
	$(VENV)/bin/mypy --strict src tests benchmarks
	$(VENV)/bin/lint-imports

# Benchmarks run the twin compiled with mypyc when a copy can be built (build/compiled, see
# scripts/compile_twin.py), else pure Python; GPUPLANE_PURE=1 make bench measures pure Python.
bench: $(STAMP) compiled
	PYTHONPATH=$(if $(GPUPLANE_PURE),,build/compiled) $(PY) benchmarks/run.py $(BENCH)

clean:
	rm -rf $(VENV) .venv-moto .venv-kube-low .pytest_cache .mypy_cache .ruff_cache build/compiled
