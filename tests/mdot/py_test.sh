#!/bin/sh
# Runs one MDOT Python test file with a python3 that has torch and torchvision
# (Debian's /usr/bin/python3 unless CCSIM_TORCH_PYTHON names another); skips otherwise.
PY=${CCSIM_TORCH_PYTHON:-/usr/bin/python3}
if ! "$PY" -c 'import torch, torchvision' 2>/dev/null; then
  echo "skipped: $PY cannot import torch and torchvision (scripts/deps.sh --mdot installs them)"
  exit 77
fi
exec "$PY" "$@"
